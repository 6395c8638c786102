import type { QueueKeys } from './keys.js';
import type { RedisClientLike } from './redis-client.js';

/**
 * The dead-letter indexes (lua/includes/dead) agree with the failed state:
 * every failed job sits in its name, reason and name+reason index, and every
 * index entry is a failed job of that name and reason. Part of verify().
 */
export async function verifyDeadIndexes(client: RedisClientLike, keys: QueueKeys): Promise<string[]> {
  const problems: string[] = [];
  const expected = new Map<string, Set<string>>();
  const failed = (await client.sendCommand(['ZRANGE', keys.failed, '0', '-1'])) as string[];
  for (const id of failed) {
    const [name, reason] = (await client.sendCommand(['HMGET', keys.job(id), 'name', 'reason'])) as (string | null)[];
    for (const key of [keys.deadByName(name ?? ''), keys.deadByReason(reason ?? ''), keys.deadByBoth(reason ?? '', name ?? '')]) {
      expected.set(key, (expected.get(key) ?? new Set()).add(id));
    }
  }
  // Every index key the scripts ever used (lua/includes/dead keeps the set): no SCAN of the keyspace.
  const present = (await client.sendCommand(['SMEMBERS', keys.deadByName('').slice(0, -'n:'.length) + 'keys'])) as string[];
  for (const key of expected.keys()) if (!present.includes(key)) problems.push(`${key} is missing from the set of dead-letter index keys`);
  for (const key of new Set([...present, ...expected.keys()])) {
    const members = new Set((await client.sendCommand(['ZRANGE', key, '0', '-1'])) as string[]);
    const want = expected.get(key) ?? new Set<string>();
    for (const id of want) if (!members.has(id)) problems.push(`dead letter ${id} is missing from ${key}`);
    for (const id of members) if (!want.has(id)) problems.push(`${key} lists ${id}, which is not a dead letter of that name and reason`);
  }
  return problems;
}
