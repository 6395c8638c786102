import { indexKey, type QueueKeys } from './keys.js';
import { ReplyShapeError } from './errors.js';
import { decodeHash, decodeJob } from './replies.js';
import type { RawReply } from './reply-values.js';
import type { ScriptName } from './scripts.js';
import type { JobRecord, Page, PageIndex, PageQuery, PurgeQuery, PurgeStep, RedriveManyOutcome } from './store.js';

/** How RedisStore runs a script for a queue (its queue bundle added), with per-call keys after the fixed ones. */
export type RunScript = (name: ScriptName, queue: string, args: readonly (string | number)[], extraKeys: readonly string[]) => Promise<RawReply>;

/** The zset a page reads. */
export function pageIndexKey(keys: QueueKeys, index: PageIndex): string {
  if ('state' in index) return indexKey(keys, index.state);
  const { name, reason } = index.failedBy;
  if (name !== undefined && reason !== undefined) return keys.deadByBoth(reason, name);
  if (name !== undefined) return keys.deadByName(name);
  if (reason !== undefined) return keys.deadByReason(reason);
  return keys.failed;
}

function bound(value: number | undefined, none: string): string {
  return value === undefined ? none : String(value);
}

/** lua/page.lua: one page of an index with its cursor. */
export async function readPage(run: RunScript, queue: string, keys: QueueKeys, q: PageQuery): Promise<Page> {
  const reply = await run('page', queue, [
    q.order,
    q.after?.id ?? '',
    q.after ? String(q.after.score) : '0',
    bound(q.min, '-inf'),
    bound(q.max, '+inf'),
    q.limit,
    q.budget,
    (q.errorContains ?? '').toLowerCase(),
    q.name ?? '',
    q.idsOnly ? '1' : '0',
  ], [pageIndexKey(keys, q.index)]);
  if (!Array.isArray(reply) || reply.length < 3) throw new ReplyShapeError('page', 'expected {done, last, score, ...}');
  const ids: string[] = [];
  const jobs: JobRecord[] = [];
  for (let i = 3; i + 1 < reply.length; i += 2) {
    const id = String(reply[i]);
    ids.push(id);
    if (!q.idsOnly) {
      const hash = decodeHash(reply[i + 1]);
      if (Object.keys(hash).length > 0) jobs.push(decodeJob(id, hash));
    }
  }
  const lastId = String(reply[1] ?? '');
  return {
    ids,
    jobs,
    done: Number(reply[0]) === 1,
    ...(lastId !== '' && { last: { id: lastId, score: Number(reply[2]) } }),
  };
}

/** lua/purge.lua: one bounded step. A name filter on dead letters walks the name's index. */
export async function purgeStep(run: RunScript, queue: string, keys: QueueKeys, q: PurgeQuery): Promise<PurgeStep> {
  const index = q.state === 'failed' && q.name !== undefined ? keys.deadByName(q.name) : indexKey(keys, q.state);
  const reply = await run('purge', queue, [q.state, bound(q.finishedBefore, '+inf'), q.name ?? '', q.batch, q.budget, q.cursor], [index]);
  if (!Array.isArray(reply) || reply.length !== 3) throw new ReplyShapeError('purge', 'expected {removed, done, cursor}');
  return { removed: Number(reply[0]), done: Number(reply[1]) === 1, cursor: String(reply[2] ?? '') };
}

/** lua/redrive-bulk.lua for one batch of ids. */
export async function redriveBatch(
  run: RunScript,
  queue: string,
  keys: QueueKeys,
  ids: readonly string[],
  options: { readonly resetAttempts: boolean; readonly delay: number },
): Promise<RedriveManyOutcome> {
  if (ids.length === 0) return { moved: 0, withParent: [] };
  const jobKeys = ids.flatMap((id) => [keys.job(id), keys.deps(id)]);
  const reply = await run('redriveBulk', queue, [options.resetAttempts ? 1 : 0, options.delay, ...ids], jobKeys);
  if (!Array.isArray(reply) || reply.length < 1) throw new ReplyShapeError('redrive-bulk', 'expected {moved, ids...}');
  return { moved: Number(reply[0]), withParent: reply.slice(1).map(String) };
}

export async function promoteBatch(run: RunScript, queue: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return Number(await run('promoteJobs', queue, ids, []));
}
