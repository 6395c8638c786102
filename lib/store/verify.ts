import { indexKey, type QueueKeys } from './keys.js';
import type { RedisClientLike } from './redis-client.js';
import { decodeHash } from './replies.js';
import { liveToken, type RawReply } from './reply-values.js';
import { JOB_STATES } from './store.js';
import { verifySchedulers } from './verify-schedulers.js';
import { verifyDeadIndexes } from './verify-dead.js';

/**
 * The keys that change with every job move verify() could see half done
 * (a state index, the fifo lane, meta's counters, groups, flow bookkeeping,
 * schedulers): readQuietly() watches them, so a verify() of a live queue is
 * taken again when a worker moved a job under it.
 */
export function verifyWatchedKeys(keys: QueueKeys): string[] {
  const indexes = JOB_STATES.map((state) => indexKey(keys, state));
  return [...indexes, keys.fifo, keys.meta, keys.groups, keys.ring, keys.outbox, keys.flowIntents, keys.schedulers];
}

/**
 * Consistency check of one queue (DESIGN invariant 1): every job id is in
 * exactly one state index (waiting jobs sit in `wait` or the `fifo` list, in a group's set or
 * parked under a paused name), the index matches the state in its hash, every
 * index entry has a hash, every hash is indexed, active jobs hold a lease, and
 * the counters kept for speed (grouped/parked waiting, per-name waiting,
 * per-group active) match what the indexes hold. Flows: a parent in
 * waiting-children waits for at least one child and no leaf is left held by
 * an unfinished flow add, children bookkeeping belongs to an existing job, and
 * the outbox holds no undelivered parent notification.
 * It reads the whole queue (SCAN included): a diagnostic for tests and
 * operators, never a hot path. Its reads are many commands: the store runs
 * it through readQuietly() so that a job moved meanwhile is not reported.
 */
export async function verifyQueue(client: RedisClientLike, keys: QueueKeys): Promise<string[]> {
  const problems: string[] = [];
  const where = new Map<string, string[]>();
  const note = (id: string, index: string) => where.set(id, [...(where.get(id) ?? []), index]);
  const members = (key: string) => client.sendCommand(['ZRANGE', key, '0', '-1']) as Promise<string[]>;
  const scan = queueKeyWalk(client, keys);

  for (const state of JOB_STATES) for (const id of await members(indexKey(keys, state))) note(id, state);
  for (const id of (await client.sendCommand(['LRANGE', keys.fifo, '0', '-1'])) as string[]) note(id, 'waiting');
  const groupWaits = (await scan(`${keys.groupPrefix}*`)).filter((k) => k.endsWith(':wait'));
  const parked = await scan(`${keys.parkedPrefix}*`);
  let grouped = 0;
  let parkedCount = 0;
  let inPausedGroups = 0;
  for (const key of groupWaits) {
    const ids = await members(key);
    for (const id of ids) (note(id, `waiting (${key})`), (grouped += 1));
    const paused = (await client.sendCommand(['HEXISTS', key.slice(0, -':wait'.length), 'paused'])) === 1;
    if (paused) inPausedGroups += ids.length;
  }
  for (const key of parked) for (const id of await members(key)) (note(id, `waiting (${key})`), (parkedCount += 1));

  const hashIds = new Set((await scan(`${keys.jobPrefix}*`)).map((key) => key.slice(keys.jobPrefix.length)));
  const ids = [...new Set([...where.keys(), ...hashIds])];
  const fields = await Promise.all(
    ids.map((id) => client.sendCommand(['HMGET', keys.job(id), 'state', 'token', 'name', 'data', 'group', 'hold']) as Promise<(string | null)[]>),
  );
  const pendingChildren = await Promise.all(ids.map((id) => client.sendCommand(['SCARD', keys.deps(id)]) as Promise<number>));
  const waitingByName = new Map<string, number>();
  const activeByGroup = new Map<string, number>();
  ids.forEach((id, i) => {
    const [state, stored, name, data, group, hold] = fields[i]!;
    // A finished lease stays in the hash, spent (lua/includes/finish): not a lease.
    const token = liveToken(stored ?? undefined);
    const indexes = where.get(id) ?? [];
    if (indexes.length > 1) problems.push(`job ${id} is in several indexes: ${indexes.join(', ')}`);
    if (!hashIds.has(id)) {
      problems.push(`job ${id} is in ${indexes.join(', ')} but has no hash`);
      return;
    }
    const index = indexes[0];
    if (index === undefined) problems.push(`job ${id} (state ${state ?? 'none'}) is in no index`);
    else if (indexes.length === 1 && index.split(' ')[0] !== state) problems.push(`job ${id} is in ${index} but its hash says ${state ?? 'nothing'}`);
    if (state === 'active' && !token) problems.push(`job ${id} is active without a lease token`);
    if (state !== 'active' && token) problems.push(`job ${id} is ${state ?? 'stateless'} but still holds a lease token`);
    if (name === null || data === null) problems.push(`job ${id} lacks its name or data`);
    if (state === 'waiting' && name != null) waitingByName.set(name, (waitingByName.get(name) ?? 0) + 1);
    if (state === 'active' && group) activeByGroup.set(group, (activeByGroup.get(group) ?? 0) + 1);
    if (hold != null) problems.push(`job ${id} is still held by a flow add that never committed`);
    else if (state === 'waiting-children' && Number(pendingChildren[i]) === 0) problems.push(`job ${id} waits for children but has none pending`);
  });

  for (const kind of ['logs', 'deps', 'results', 'failures'] as const) {
    const prefix = keys[kind]('');
    for (const key of await scan(`${prefix}*`)) {
      if (!hashIds.has(key.slice(prefix.length))) problems.push(`${key} belongs to no job`);
    }
  }
  const undelivered = (await client.sendCommand(['HKEYS', keys.outbox])) as string[];
  if (undelivered.length) problems.push(`the outbox holds undelivered parent notifications of ${undelivered.join(', ')}`);
  const uncommitted = (await client.sendCommand(['HKEYS', keys.flowIntents])) as string[];
  if (uncommitted.length) problems.push(`flow adds ${uncommitted.join(', ')} wrote nodes here but never committed them`);

  const meta = decodeHash((await client.sendCommand(['HGETALL', keys.meta])) as RawReply);
  // Drops name a job's log and flow keys only where meta says they may exist (lua/includes/owned-keys).
  if (meta.kt !== undefined) {
    if (meta.klog === undefined && (await scan(`${keys.logs('')}*`)).length) problems.push('job logs exist but meta klog is unset');
    if (meta.kflow === undefined && (await scan(`${keys.deps('')}*`)).length) problems.push('flow parents exist but meta kflow is unset');
  }
  const counter = (field: string) => Number(meta[field] ?? 0);
  if (counter('gw') !== grouped) problems.push(`meta gw says ${counter('gw')} grouped waiting jobs, the group sets hold ${grouped}`);
  if (counter('gpw') !== inPausedGroups) problems.push(`meta gpw says ${counter('gpw')} jobs wait in paused groups, their sets hold ${inPausedGroups}`);
  if (counter('pw') !== parkedCount) problems.push(`meta pw says ${counter('pw')} parked jobs, the parked sets hold ${parkedCount}`);
  const names = new Set([...waitingByName.keys(), ...Object.keys(meta).filter((f) => f.startsWith('n:')).map((f) => f.slice(2))]);
  for (const name of names) {
    if (counter(`n:${name}`) !== (waitingByName.get(name) ?? 0)) {
      problems.push(`meta n:${name} says ${counter(`n:${name}`)} waiting, the indexes hold ${waitingByName.get(name) ?? 0}`);
    }
  }
  for (const gid of (await client.sendCommand(['SMEMBERS', keys.groups])) as string[]) {
    const active = Number((await client.sendCommand(['HGET', keys.group(gid), 'active'])) ?? 0);
    if (active !== (activeByGroup.get(gid) ?? 0)) problems.push(`group ${gid} counts ${active} active, ${activeByGroup.get(gid) ?? 0} are`);
    activeByGroup.delete(gid);
  }
  for (const gid of activeByGroup.keys()) problems.push(`group ${gid} has active jobs but is not in the groups set`);
  const ring = (await client.sendCommand(['LRANGE', keys.ring, '0', '-1'])) as string[];
  if (new Set(ring).size !== ring.length) problems.push(`the group ring holds a group twice: ${ring.join(', ')}`);
  problems.push(...(await verifySchedulers(client, keys, scan)));
  problems.push(...(await verifyDeadIndexes(client, keys)));
  return problems;
}

/**
 * Lists the queue's keys by prefix from one SCAN walk, made on first use:
 * SCAN visits the whole keyspace whatever MATCH says (Redis 7.0 does not
 * narrow a walk to a hash tag's slot), so on a server holding other data a
 * walk per pattern cost verify() one full pass of every key each time.
 * The walk matches the part every pattern shares (`{prefix:queue}:`).
 */
function queueKeyWalk(client: RedisClientLike, keys: QueueKeys): (pattern: string) => Promise<string[]> {
  const prefixes = [keys.jobPrefix, keys.logs(''), keys.groupPrefix, keys.parkedPrefix, keys.schedulerPrefix, keys.deps(''), keys.results(''), keys.failures('')];
  const common = prefixes.reduce((a, b) => {
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n += 1;
    return a.slice(0, n);
  });
  let walked: Promise<string[]> | undefined;
  // Every pattern verify() asks for is `<key prefix>*`.
  return async (pattern) => {
    const prefix = pattern.slice(0, -1);
    if (!pattern.endsWith('*') || !prefix.startsWith(common)) return scan(client, pattern);
    walked ??= scan(client, `${common}*`);
    return (await walked).filter((key) => key.startsWith(prefix));
  };
}

async function scan(client: RedisClientLike, pattern: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = (await client.sendCommand(['SCAN', cursor, 'MATCH', escapeGlob(pattern), 'COUNT', '1000'])) as [string, string[]];
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  return found;
}

/** Escapes glob characters of a key prefix; a trailing `*` stays a wildcard. */
function escapeGlob(pattern: string): string {
  const star = pattern.endsWith('*');
  const body = star ? pattern.slice(0, -1) : pattern;
  return body.replace(/[*?[\]\\]/g, (c) => `\\${c}`) + (star ? '*' : '');
}

