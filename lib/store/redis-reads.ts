import { indexKey, type QueueKeys } from './keys.js';
import type { RedisClientLike } from './redis-client.js';
import { decodeFlag, decodeHash, decodeJob, decodeStrings } from './replies.js';
import { decodeChildren } from './flow-replies.js';
import { decodeGroup, decodeLimits } from './limit-replies.js';
import type { RawReply } from './reply-values.js';
import type { ChildrenRecord, GroupState, JobRecord, JobState, QueueLimits } from './store.js';

/**
 * The store's reads and writes that are plain commands on one queue's keys
 * (no script: nothing here changes a job's state). Each takes the command
 * connection and the queue's keys; every reply goes through its decoder.
 */
const send = (client: RedisClientLike, args: readonly string[]): Promise<RawReply> => client.sendCommand(args) as Promise<RawReply>;

export async function isPaused(client: RedisClientLike, k: QueueKeys): Promise<boolean> {
  return decodeFlag('HEXISTS', await send(client, ['HEXISTS', k.meta, 'paused']));
}

export async function readJob(client: RedisClientLike, k: QueueKeys, id: string): Promise<JobRecord | null> {
  const hash = decodeHash(await send(client, ['HGETALL', k.job(id)]));
  return Object.keys(hash).length === 0 ? null : decodeJob(id, hash);
}

export async function readLogs(client: RedisClientLike, k: QueueKeys, id: string): Promise<string[]> {
  return decodeStrings('LRANGE', await send(client, ['LRANGE', k.logs(id), '0', '-1']));
}

export async function readOnce(client: RedisClientLike, k: QueueKeys, key: string): Promise<string | null> {
  return (await send(client, ['GET', k.once(key)])) as string | null;
}

export async function writeOnce(client: RedisClientLike, k: QueueKeys, key: string, outcome: string, ttlMs: number): Promise<void> {
  await send(client, ['SET', k.once(key), outcome, 'PX', String(ttlMs)]);
}

export async function readPausedNames(client: RedisClientLike, k: QueueKeys): Promise<string[]> {
  return decodeStrings('SMEMBERS', await send(client, ['SMEMBERS', k.pausedNames]));
}

export async function readLimits(client: RedisClientLike, k: QueueKeys): Promise<QueueLimits> {
  return decodeLimits(await send(client, ['HMGET', k.meta, 'rl', 'gcap', 'grl', 'mw', 'mwg', 'ev', 'gc']));
}

export async function readGroup(client: RedisClientLike, k: QueueKeys, group: string): Promise<GroupState> {
  const [fields, waiting] = await Promise.all([
    send(client, ['HMGET', k.group(group), 'paused', 'active', 'cap', 'rl']),
    send(client, ['ZCARD', k.groupWait(group)]),
  ]);
  return decodeGroup(group, fields, waiting);
}

export async function readIds(client: RedisClientLike, k: QueueKeys, state: JobState, start: number, end: number): Promise<string[]> {
  return decodeStrings('ZRANGE', await send(client, ['ZRANGE', indexKey(k, state), String(start), String(end)]));
}

export async function readChildren(client: RedisClientLike, k: QueueKeys, id: string): Promise<ChildrenRecord> {
  const [pending, results, failures] = await Promise.all([
    send(client, ['SMEMBERS', k.deps(id)]),
    send(client, ['HGETALL', k.results(id)]),
    send(client, ['HGETALL', k.failures(id)]),
  ]);
  return decodeChildren(decodeStrings('SMEMBERS', pending), decodeHash(results), decodeHash(failures));
}
