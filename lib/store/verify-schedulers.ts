import type { QueueKeys } from './keys.js';
import type { RedisClientLike } from './redis-client.js';
import { decodeHash } from './replies.js';
import type { RawReply } from './reply-values.js';

/**
 * Scheduler part of verify(): every scheduler in the index has a hash and
 * every hash is indexed, the index score is the pending tick in the hash
 * (+inf for an ended scheduler), the pending tick's job exists, and no
 * scheduler has more than one tick job waiting to be promoted. `scan` lists
 * keys by pattern (verify's own SCAN walk).
 */
export async function verifySchedulers(client: RedisClientLike, keys: QueueKeys, scan: (pattern: string) => Promise<string[]>): Promise<string[]> {
  const problems: string[] = [];
  const indexed = (await client.sendCommand(['ZRANGE', keys.schedulers, '0', '-1', 'WITHSCORES'])) as RawReply[];
  const scores = new Map<string, string>();
  // RESP3 replies [member, score] pairs, RESP2 a flat list.
  if (indexed.every((e) => Array.isArray(e))) for (const pair of indexed as RawReply[][]) scores.set(String(pair[0]), String(pair[1]));
  else for (let i = 0; i + 1 < indexed.length; i += 2) scores.set(String(indexed[i]), String(indexed[i + 1]));
  const hashed = new Set((await scan(`${keys.schedulerPrefix}*`)).map((key) => key.slice(keys.schedulerPrefix.length)));
  for (const id of hashed) if (!scores.has(id)) problems.push(`scheduler ${id} has a hash but is not in the schedulers index`);
  for (const [id, score] of scores) {
    if (!hashed.has(id)) {
      problems.push(`scheduler ${id} is in the schedulers index but has no hash`);
      continue;
    }
    const h = decodeHash((await client.sendCommand(['HGETALL', keys.scheduler(id)])) as RawReply);
    const next = h.next ?? '';
    if (h.starved === '1') continue; // scored by its retry time until its cron times are refilled
    if (next === '') {
      if (Number(score) !== Infinity && !/^\+?inf$/i.test(score)) problems.push(`scheduler ${id} has no pending tick but is scored ${score}`);
      continue;
    }
    if (Number(score) !== Number(next)) problems.push(`scheduler ${id} is scored ${score} but its pending tick is ${next}`);
    const state = (await client.sendCommand(['HGET', keys.job(`${id}:${next}`), 'state'])) as string | null;
    if (state === null) problems.push(`scheduler ${id}'s pending tick job ${id}:${next} does not exist`);
  }
  const pending = new Map<string, number>();
  for (const jobId of (await client.sendCommand(['ZRANGE', keys.delayed, '0', '-1'])) as string[]) {
    const [sch, runAt] = (await client.sendCommand(['HMGET', keys.job(jobId), 'sch', 'runAt'])) as (string | null)[];
    // A tick job back in delayed for a retry has run already; only never-promoted ticks count.
    if (sch && jobId === `${sch}:${runAt ?? ''}` && (await client.sendCommand(['HGET', keys.job(jobId), 'attempt'])) === null) {
      pending.set(sch, (pending.get(sch) ?? 0) + 1);
    }
  }
  for (const [id, n] of pending) if (n > 1) problems.push(`scheduler ${id} has ${n} pending tick jobs`);
  return problems;
}
