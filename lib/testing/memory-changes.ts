import type { DrainQuery, DrainStep, JobChange, JobChangeOutcome, ObliterateOutcome } from '../store/job-changes.js';
import type { JobState } from '../store/store.js';
import { emit } from './memory-events.js';
import { announceDelayed, cancelled, dropJob, place, releaseDedup, unplace, wake, waitScore, type Ctx } from './memory-moves.js';
import { finishedIndex, type MemJob, type MemQueue } from './memory-state.js';

/**
 * Job handle changes in memory, one function per script: lua/remove-job,
 * promote-job, change-delay, change-priority, set-data, set-progress; and
 * queue housekeeping: drain.lua (obliterate is MemoryStore dropping the queue).
 */
export function changeJobIn(ctx: Ctx, id: string, change: JobChange): JobChangeOutcome {
  const job = ctx.q.jobs.get(id);
  if (!job) return { status: 'unknown' };
  switch (change.kind) {
    case 'remove':
      return removeAny(ctx, job);
    case 'promote':
      if (job.state !== 'delayed') return { status: 'refused', state: job.state };
      toWaiting(ctx, job);
      return { status: 'changed', state: 'waiting' };
    case 'delay':
      return changeDelay(ctx, job, change.delay);
    case 'priority':
      if (job.state !== 'waiting' && job.state !== 'delayed') return { status: 'refused', state: job.state };
      job.priority = change.priority;
      job.lifo = change.lifo;
      if (job.state === 'waiting') {
        unplace(ctx.q, job);
        place(ctx, job, waitScore(ctx.q, job.priority, job.lifo));
      }
      return { status: 'changed', state: job.state };
    case 'data':
      if (!['waiting', 'delayed', 'waiting-children', 'failed'].includes(job.state)) return { status: 'refused', state: job.state };
      job.data = change.data;
      return { status: 'changed', state: job.state };
    case 'progress': {
      if (!['waiting', 'delayed', 'waiting-children'].includes(job.state)) return { status: 'refused', state: job.state };
      const { progress } = change;
      job.progress = progress;
      const bytes = Buffer.byteLength(progress);
      emit(ctx, 'progress', bytes <= 1024 ? { jobId: id, progress } : { jobId: id, size: bytes });
      return { status: 'changed', state: job.state };
    }
  }
}

/** delayed -> waiting now (promote-job, change-delay 0). */
function toWaiting(ctx: Ctx, job: MemJob): void {
  ctx.q.delayed.delete(job.id);
  job.runAt = ctx.now;
  if (place(ctx, job, waitScore(ctx.q, job.priority, job.lifo))) wake(ctx, 1);
}

function changeDelay(ctx: Ctx, job: MemJob, delay: number): JobChangeOutcome {
  if (job.state !== 'waiting' && job.state !== 'delayed') return { status: 'refused', state: job.state };
  if (delay === 0) {
    if (job.state === 'delayed') toWaiting(ctx, job);
    return { status: 'changed', state: 'waiting' };
  }
  if (job.state === 'waiting') {
    unplace(ctx.q, job);
    job.ws = undefined;
  }
  job.state = 'delayed';
  job.runAt = ctx.now + delay;
  ctx.q.delayed.add(job.id, job.runAt);
  emit(ctx, 'delayed', { jobId: job.id, delay, runAt: job.runAt });
  announceDelayed(ctx, job.id, delay);
  return { status: 'changed', state: 'delayed' };
}

/** remove-job.lua */
function removeAny(ctx: Ctx, job: MemJob): JobChangeOutcome {
  const { q } = ctx;
  const { state } = job;
  const finished = finishedIndex(q, state);
  if (!finished && state !== 'waiting' && state !== 'delayed') return { status: 'refused', state };
  if (job.deps.size > 0) return { status: 'children-pending', state, pending: job.deps.size };
  if (!finished && job.parent) return { status: 'flow-child', state };
  if (state === 'waiting') unplace(q, job);
  else if (state === 'delayed') q.delayed.delete(job.id);
  else finished!.delete(job.id);
  releaseDedup(q, job);
  dropJob(q, job.id);
  emit(ctx, 'removed', { jobId: job.id, state });
  return { status: 'changed', state };
}

/** drain.lua: one bounded step, lane by lane; a flow child is cancelled, so its parent hears. */
export function drainIn(ctx: Ctx, query: DrainQuery): DrainStep {
  const { q } = ctx;
  let left = query.batch;
  let removed = 0;
  const take = (id: string): void => {
    left -= 1;
    const job = q.jobs.get(id);
    if (!job) return;
    removed += 1;
    if (job.parent) {
      cancelled(ctx, job);
      return;
    }
    releaseDedup(q, job);
    dropJob(q, id);
    emit(ctx, 'removed', { jobId: id, state: job.state });
  };
  while (left > 0 && q.fifo.length > 0) take(q.fifo.shift()!);
  const sets = [q.wait, ...q.parked.values(), ...[...q.groups.values()].map((g) => g.wait), ...(query.delayed ? [q.delayed] : [])];
  for (const set of sets) {
    for (let top = left > 0 ? set.popMin() : undefined; top; top = left > 0 ? set.popMin() : undefined) take(top[0]);
  }
  return { removed, done: left > 0, cursor: '' };
}

/** obliterate: refused while jobs are active (unless forced); else `forget` drops the queue with all it holds. */
export function obliterateIn(q: MemQueue, force: boolean, forget: () => void): ObliterateOutcome {
  if (!force && q.active.size > 0) return { status: 'active', active: q.active.size };
  forget();
  return { status: 'obliterated' };
}

/** watch.lua: the job's finish will be announced; its state, null when unknown. */
export function watchIn(q: MemQueue, id: string): JobState | null {
  const job = q.jobs.get(id);
  if (!job) return null;
  job.watched = true;
  return job.state;
}
