import type { FinishedMessage, OwnershipMessage, SchedMessage } from '../notify/notify-adapter.js';
import type { JobState, RateLimit } from '../store/store.js';
import { groupOf, parkedOf, type MemJob, type MemQueue, type Retention } from './memory-state.js';
import type { SortedSet } from './sorted-set.js';
import { emit, eventText } from './memory-events.js';

/**
 * The shared steps of MemoryStore's transitions, one for each include of
 * lua/includes (place, groups, wake, finish, retention, flow): the Lua
 * scripts are the spec, these mirror them step by step.
 */

/** Messages a transition publishes; the store hands them to its notify adapter once the transition is over. */
export interface Signals {
  readonly sched: SchedMessage[];
  readonly owls: OwnershipMessage[];
  readonly done: FinishedMessage[];
}

/** One transition on one queue: the queue, the time it runs at, what it publishes. */
export interface Ctx {
  readonly q: MemQueue;
  readonly now: number;
  readonly signals: Signals;
}

const TWO_32 = 4294967296;
const TWO_33 = 8589934592;

/** includes/place spool_wait_score: strict priority, FIFO (LIFO on request) by sequence. */
export function waitScore(q: MemQueue, priority: number, lifo: boolean): number {
  q.seq += 1;
  const seq = q.seq % TWO_32;
  const base = priority * TWO_33 + TWO_32;
  if (lifo) return base - 1 - seq;
  q.fresh = priority === 0 ? base + seq : undefined;
  return base + seq;
}

/**
 * The ungrouped waiting jobs in claim order (lua/includes/waiting-lanes): wait's priority 0, the fifo
 * list, the rest. A listed job's score is minus its ws, as page.lua reports it for a cursor.
 */
export function waitingLanes(q: MemQueue): [id: string, score: number][] {
  const entries = q.wait.members().map((id): [string, number] => [id, q.wait.score(id)!]);
  const low = entries.filter(([, s]) => s < TWO_33);
  return [...low, ...q.fifo.map((id): [string, number] => [id, -(q.jobs.get(id)?.ws ?? 1)]), ...entries.slice(low.length)];
}

/** spool_place: true when the job is claimable now (not parked under a paused name). */
export function place(ctx: Ctx, job: MemJob, score: number): boolean {
  const { q } = ctx;
  const fresh = q.fresh === score;
  q.fresh = undefined;
  job.state = 'waiting';
  job.ws = score;
  if (q.pausedNames.has(job.name)) {
    parkedOf(q, job.name).add(job.id, score);
    return false;
  }
  if (job.group !== undefined) {
    groupOf(q, job.group).wait.add(job.id, score);
    groupReady(q, job.group);
  } else if (fresh) {
    q.fifo.push(job.id);
  } else {
    q.wait.add(job.id, score);
  }
  return true;
}

/** spool_unplace: a waiting job leaves its place. */
export function unplace(q: MemQueue, job: MemJob): void {
  if (q.parked.get(job.name)?.delete(job.id)) return;
  if (job.group !== undefined) q.groups.get(job.group)?.wait.delete(job.id);
  else if (!q.wait.delete(job.id)) {
    const at = q.fifo.indexOf(job.id);
    if (at >= 0) q.fifo.splice(at, 1);
  }
}

export function groupWaiting(q: MemQueue): number {
  let n = 0;
  for (const g of q.groups.values()) n += g.wait.size;
  return n;
}

export function parkedCount(q: MemQueue): number {
  let n = 0;
  for (const p of q.parked.values()) n += p.size;
  return n;
}

/** spool_waiting_count: claimable-or-soon waiting jobs (parked ones excluded). */
export function waitingCount(q: MemQueue): number {
  return q.wait.size + q.fifo.length + groupWaiting(q);
}

export function groupCap(q: MemQueue, gid: string): number {
  return q.groups.get(gid)?.cap ?? q.gcap ?? 0;
}

/** spool_group_ready: into the ring when it can be served and is not queued already. */
export function groupReady(q: MemQueue, gid: string): boolean {
  const g = q.groups.get(gid);
  if (!g || g.sched || g.paused) return false;
  const cap = groupCap(q, gid);
  if (cap > 0 && g.active >= cap) return false;
  if (g.wait.size === 0) return false;
  q.ring.push(gid);
  g.sched = true;
  return true;
}

/** spool_group_released: a job of the group left active; true when the group rejoined the ring. */
export function groupReleased(q: MemQueue, gid: string | undefined): boolean {
  if (gid === undefined) return false;
  const g = groupOf(q, gid);
  g.active = Math.max(0, g.active - 1);
  if (g.active === 0 && !g.sched && !g.paused && g.cap === undefined && g.rl === undefined && g.wait.size === 0) {
    q.groups.delete(gid);
    return false;
  }
  return groupReady(q, gid);
}

/** spool_groups_reopen: groups whose rate window reopened go back to the ring. */
export function groupsReopen(q: MemQueue, now: number): void {
  for (const gid of q.glimited.upTo(now, 100)) {
    q.glimited.delete(gid);
    const g = q.groups.get(gid);
    if (g) g.sched = false;
    groupReady(q, gid);
  }
}

/** spool_window: starts the fixed window still admits, when it reopens, and whether it is a fresh one. */
export function rateWindow(limit: RateLimit | undefined, start: number, count: number, now: number): [allowance: number, reopen: number, fresh: boolean] {
  if (!limit) return [Infinity, 0, false];
  if (now >= start + limit.duration) return [limit.max, now + limit.duration, true];
  return [limit.max - count, start + limit.duration, false];
}

/** spool_wake: idle workers hear of new work (in process every wake is published; there is no budget to spend). */
export function wake(ctx: Ctx, n: number): void {
  // At the global cap an idle worker could start nothing: the next job to leave active wakes it (includes/wake).
  if (n > 0 && !ctx.q.gcFull) ctx.signals.sched.push({ kind: 'waiting', queue: ctx.q.name });
}

/** spool_announce_delayed: the job became the earliest delayed one. */
export function announceDelayed(ctx: Ctx, id: string, dueIn: number): void {
  if (ctx.q.delayed.first()?.[0] === id) ctx.signals.sched.push({ kind: 'delayed', queue: ctx.q.name, dueIn });
}

/** spool_leave_active: the lease ends. */
export function leaveActive(ctx: Ctx, job: MemJob, keepToken: boolean): void {
  ctx.q.active.delete(job.id);
  if (job.token !== undefined) {
    if (keepToken) job.finishedToken = job.token;
    job.token = undefined;
  }
  if (groupReleased(ctx.q, job.group)) wake(ctx, 1);
  if (ctx.q.gcFull) {
    // includes/global-cap spool_global_freed: workers turned away by the cap hear of the free slot.
    ctx.q.gcFull = false;
    wake(ctx, 1);
  }
}

export function releaseDedup(q: MemQueue, job: MemJob): void {
  if (job.dedupKey !== undefined && q.dedup.get(job.dedupKey)?.id === job.id) q.dedup.delete(job.dedupKey);
}

/** spool_finish: into a terminal index; true when retention removed the job. */
export function finish(ctx: Ctx, job: MemJob, index: SortedSet, state: JobState, spec: Retention): boolean {
  job.state = state;
  job.finishedAt = ctx.now;
  index.add(job.id, ctx.now);
  releaseDedup(ctx.q, job);
  flowFinished(ctx, job, state);
  return retain(ctx, index, job, spec);
}

export function deadLetter(ctx: Ctx, job: MemJob, reason: string, message: string, stack: string, code: string): boolean {
  job.reason = reason;
  job.error = { message, stack, code };
  emit(ctx, 'failed', { jobId: job.id, next: 'dead', reason, message: eventText(message) });
  return finish(ctx, job, ctx.q.failed, 'failed', job.rf);
}

export function cancelled(ctx: Ctx, job: MemJob): boolean {
  job.cancel = false;
  emit(ctx, 'cancelled', { jobId: job.id });
  return finish(ctx, job, ctx.q.cancelled, 'cancelled', job.rf);
}

/** includes/flow spool_post_parent: a notification for the job's parent in this queue's outbox. */
export function postParent(ctx: Ctx, job: MemJob, st: string): void {
  if (!job.parent) return;
  ctx.q.obx += 1;
  ctx.q.outbox.set(job.id, JSON.stringify({
    n: ctx.q.obx, pq: job.parent.queue, pid: job.parent.id, pol: job.parent.policy, q: ctx.q.name, id: job.id, st,
    r: job.result ?? 'null', e: job.error?.message ?? '', why: job.reason ?? '',
  }));
}

/** spool_flow_finished: tell the parent (outbox) and whoever waits (done channel). */
export function flowFinished(ctx: Ctx, job: MemJob, state: JobState): void {
  if (job.parent) postParent(ctx, job, state);
  if (job.watched) ctx.signals.done.push({ queue: ctx.q.name, id: job.id, state });
}

export function dropJob(q: MemQueue, id: string): void {
  q.jobs.delete(id);
}

/** includes/retention SPOOL_TRIM_MAX: most jobs one trim drops per rule (more than one call adds). */
const TRIM_MAX = 1000;

/** includes/retention spool_retain: true when the finished job itself was removed. */
export function retain(ctx: Ctx, index: SortedSet, job: MemJob, spec: Retention): boolean {
  const { q } = ctx;
  if (spec.count === -1 && spec.age === -1) return false;
  if (spec.count === 0) {
    index.delete(job.id);
    dropJob(q, job.id);
    return true;
  }
  if (spec.count > 0) {
    let excess = Math.min(index.size - spec.count, TRIM_MAX);
    while (excess-- > 0) dropJob(q, index.popMin()![0]);
  }
  if (spec.age >= 0) {
    for (const id of index.upTo(ctx.now - spec.age - 1, TRIM_MAX)) {
      index.delete(id);
      dropJob(q, id);
    }
  }
  return !q.jobs.has(job.id);
}
