import type { JobRecord, Page, PageIndex, PageQuery, PurgeQuery, PurgeStep, RedriveManyOutcome } from '../store/store.js';
import { emit } from './memory-events.js';
import { redriveJob } from './memory-flows.js';
import { dropJob, place, releaseDedup, waitScore, waitingLanes, wake, type Ctx } from './memory-moves.js';
import { indexOf } from './memory-queue.js';
import { finishedIndex, toRecord, type MemQueue } from './memory-state.js';

/**
 * The operations API in memory: lua/page.lua, purge.lua, redrive-bulk.lua
 * and promote-jobs.lua step by step, so pages, cursors, budgets and `done`
 * come out as on Redis. The dead-letter indexes by name and reason
 * (includes/dead) are the failed index filtered: the same members in the
 * same order.
 */

type Entry = readonly [id: string, score: number];

const TWO_33 = 8589934592;

/** The members of a page's index, ascending (score, then member). */
function entriesOf(q: MemQueue, index: PageIndex): Entry[] {
  if ('state' in index) {
    if (index.state === 'waiting') return waitingLanes(q);
    const set = indexOf(q, index.state);
    return set.members().map((id) => [id, set.score(id)!]);
  }
  const { name, reason } = index.failedBy;
  return q.failed.members()
    .filter((id) => {
      const job = q.jobs.get(id);
      return job !== undefined && (name === undefined || job.name === name) && (reason === undefined || (job.reason ?? '') === reason);
    })
    .map((id) => [id, q.failed.score(id)!]);
}

/** includes/cursor spool_cursor_rank: where the entries after (id, score) start, in page order, whether or not the member is still there. */
function cursorRank(entries: readonly Entry[], id: string, score: number, desc: boolean): number {
  const after = desc
    ? ([m, s]: Entry) => s < score || (s === score && m < id)
    : ([m, s]: Entry) => s > score || (s === score && m > id);
  const at = entries.findIndex(after);
  return at < 0 ? entries.length : at;
}

/** includes/waiting-lanes spool_lanes_after: a listed cursor (minus its ws) by its score in the list, there or not. */
function lanesAfter(q: MemQueue, entries: readonly Entry[], id: string, score: number): number {
  const low = entries.filter(([, s]) => s >= 0 && s < TWO_33).length;
  if (score < 0) {
    const at = q.fifo.findIndex((listed) => !((q.jobs.get(listed)?.ws ?? Infinity) <= -score));
    return low + (at < 0 ? q.fifo.length : at);
  }
  const at = entries.findIndex(([m, s]) => m === id && s >= 0);
  if (at >= 0) return at + 1;
  const rank = cursorRank(entries.filter(([, s]) => s >= 0), id, score, false);
  return score < TWO_33 ? rank : rank + q.fifo.length;
}

/** page.lua: one page of at most `limit` jobs out of at most `budget` entries examined. */
export function pageOf(q: MemQueue, query: PageQuery): Page {
  const desc = query.order === 'desc';
  const asc = entriesOf(q, query.index);
  const entries = desc ? [...asc].reverse() : asc;
  const { min, max, limit, budget } = query;
  const needle = (query.errorContains ?? '').toLowerCase();
  const name = query.name ?? '';
  const filtered = needle !== '' || name !== '';
  let rank = 0;
  const lanes = 'state' in query.index && query.index.state === 'waiting';
  if (lanes && desc) throw new Error('page: waiting jobs are paged in claim order (asc) only');
  if (lanes) {
    if (query.after) rank = lanesAfter(q, asc, query.after.id, query.after.score);
  } else {
    if (desc && max !== undefined) rank = asc.filter(([, s]) => s > max).length;
    else if (!desc && min !== undefined) rank = asc.filter(([, s]) => s < min).length;
    if (query.after) rank = Math.max(rank, cursorRank(entries, query.after.id, query.after.score, desc));
  }
  const ids: string[] = [];
  const jobs: JobRecord[] = [];
  let last = query.after;
  const page = (done: boolean): Page => ({ ids, jobs: query.idsOnly ? [] : jobs, done, ...(last && { last }) });
  let found = 0;
  let examined = 0;
  while (found < limit && examined < budget) {
    let want = Math.min(100, budget - examined);
    if (!filtered) want = Math.min(want, limit - found);
    const chunk = entries.slice(rank, rank + want);
    for (let i = 0; i < chunk.length; i++) {
      const [id, score] = chunk[i]!;
      if (!lanes && ((desc && min !== undefined && score < min) || (!desc && max !== undefined && score > max))) return page(true);
      examined += 1;
      last = { id, score };
      const job = q.jobs.get(id);
      const keep = !filtered || (job !== undefined && (name === '' || job.name === name) && (needle === '' || (job.error?.message ?? '').toLowerCase().includes(needle)));
      if (keep) {
        found += 1;
        ids.push(id);
        if (job) jobs.push(toRecord(job));
        if (found >= limit && i + 1 < chunk.length) return page(false);
      }
    }
    rank += chunk.length;
    if (chunk.length < want) return page(true);
  }
  return page(false);
}

/** purge.lua: one bounded step, oldest first, from after the last job that stayed. */
export function purgeOf(ctx: Ctx, query: PurgeQuery): PurgeStep {
  const { q } = ctx;
  const { state, name, batch, budget } = query;
  const stateIndex = finishedIndex(q, state)!;
  const entries = entriesOf(q, state === 'failed' && name !== undefined ? { failedBy: { name } } : { state });
  let cursor = query.cursor;
  let rank = 0;
  if (cursor !== '') {
    const score = stateIndex.score(cursor);
    rank = score === undefined ? 0 : cursorRank(entries, cursor, score, false);
  }
  let removed = 0;
  const chunk = entries.slice(rank, rank + budget);
  for (const [id, score] of chunk) {
    if (query.finishedBefore !== undefined && score > query.finishedBefore) return { removed, done: true, cursor };
    if (removed >= batch) return { removed, done: false, cursor };
    const job = q.jobs.get(id);
    if (!job) {
      stateIndex.delete(id);
    } else if (job.state !== state || (name !== undefined && job.name !== name) || job.deps.size > 0) {
      cursor = id;
    } else {
      stateIndex.delete(id);
      releaseDedup(q, job);
      dropJob(q, id);
      emit(ctx, 'removed', { jobId: id, state });
      removed += 1;
    }
  }
  return { removed, done: chunk.length < budget, cursor };
}

/** redrive-bulk.lua: each dead letter among `ids` as redrive does it; others are skipped. */
export function redriveMany(ctx: Ctx, ids: readonly string[], options: { readonly resetAttempts: boolean; readonly delay: number }): RedriveManyOutcome {
  let moved = 0;
  const withParent: string[] = [];
  for (const id of ids) {
    if (redriveJob(ctx, id, options.resetAttempts, options.delay).status !== 'redriven') continue;
    moved += 1;
    if (ctx.q.jobs.get(id)?.parent) withParent.push(id);
  }
  return { moved, withParent };
}

/** promote-jobs.lua: the delayed jobs among `ids` wait now. */
export function promoteJobs(ctx: Ctx, ids: readonly string[]): number {
  const { q } = ctx;
  let moved = 0;
  let claimable = 0;
  for (const id of ids) {
    const job = q.jobs.get(id);
    if (job?.state !== 'delayed' || !q.delayed.delete(id)) continue;
    job.runAt = ctx.now;
    if (place(ctx, job, waitScore(q, job.priority, job.lifo))) claimable += 1;
    moved += 1;
  }
  wake(ctx, claimable);
  return moved;
}
