import type { GroupLimits, GroupState, JobCounts, JobState, QueueLimits } from '../store/store.js';
import { JOB_STATES } from '../store/store.js';
import { groupReady, parkedCount, place, waitingCount, waitingLanes, wake, type Ctx } from './memory-moves.js';
import { groupOf, type MemQueue } from './memory-state.js';
import type { SortedSet } from './sorted-set.js';
import { emit } from './memory-events.js';

/** Queue-wide reads and settings: counts.lua, configure.lua, resume-names.lua, and verify. */

export function queueLimits(q: MemQueue): QueueLimits {
  return {
    rateLimit: q.rl ?? null,
    concurrency: q.gc ?? null,
    groupConcurrency: q.gcap ?? null,
    groupRateLimit: q.grl ?? null,
    maxWaiting: q.mw ?? null,
    maxWaitingPerGroup: q.mwg ?? null,
    ...(q.ev !== undefined && { events: q.ev === 0 ? false : { maxLen: q.ev } }),
  };
}

/** configure.lua: limits set (null removes one); groups that may start more rejoin the ring. */
export function configureQueue(ctx: Ctx, limits: QueueLimits): void {
  const { q } = ctx;
  if (limits.rateLimit !== undefined) q.rl = limits.rateLimit ?? undefined;
  if (limits.concurrency !== undefined) q.gc = limits.concurrency ?? undefined;
  if (limits.groupConcurrency !== undefined) q.gcap = limits.groupConcurrency ?? undefined;
  if (limits.groupRateLimit !== undefined) q.grl = limits.groupRateLimit ?? undefined;
  if (limits.maxWaiting !== undefined) q.mw = limits.maxWaiting ?? undefined;
  if (limits.maxWaitingPerGroup !== undefined) q.mwg = limits.maxWaitingPerGroup ?? undefined;
  const { events } = limits;
  if (events !== undefined) q.ev = events === null || events === true ? undefined : events === false ? 0 : events.maxLen;
  for (const gid of q.groups.keys()) groupReady(q, gid);
  q.gcFull = false;
  wake(ctx, waitingCount(q));
}

/** pause.lua */
export function pauseQueue(ctx: Ctx): boolean {
  if (ctx.q.paused) return false;
  ctx.q.paused = true;
  emit(ctx, 'paused');
  return true;
}

/** pause-names.lua: how many names were newly paused. */
export function pauseNamesOf(ctx: Ctx, names: readonly string[]): number {
  let added = 0;
  for (const name of names) {
    if (ctx.q.pausedNames.has(name)) continue;
    ctx.q.pausedNames.add(name);
    emit(ctx, 'paused', { name });
    added += 1;
  }
  return added;
}

/** resume.lua: claims start again; idle workers hear of the waiting jobs. */
export function resumeQueue(ctx: Ctx): boolean {
  if (!ctx.q.paused) return false;
  ctx.q.paused = false;
  emit(ctx, 'resumed');
  wake(ctx, waitingCount(ctx.q));
  return true;
}

/** pause-group.lua: the ring drops the group lazily, when a claim reaches it. */
export function pauseGroupOf(ctx: Ctx, gid: string): boolean {
  const g = groupOf(ctx.q, gid);
  return !g.paused && (g.paused = true);
}

/** resume-group.lua */
export function resumeGroupOf(ctx: Ctx, gid: string): boolean {
  const g = groupOf(ctx.q, gid);
  if (!g.paused) return false;
  g.paused = false;
  groupReady(ctx.q, gid);
  wake(ctx, g.wait.size);
  return true;
}

/** group-limits.lua: undefined leaves a limit, null falls back to the queue default. */
export function setGroupLimitsOf(ctx: Ctx, gid: string, limits: GroupLimits): void {
  const g = groupOf(ctx.q, gid);
  if (limits.concurrency !== undefined) g.cap = limits.concurrency ?? undefined;
  if (limits.rateLimit !== undefined) g.rl = limits.rateLimit ?? undefined;
  groupReady(ctx.q, gid);
  wake(ctx, g.wait.size);
}

/** resume-names.lua: parked jobs of the names go back to their places, in order. */
export function resumeNamesOf(ctx: Ctx, names: readonly string[]): void {
  const { q } = ctx;
  let claimable = 0;
  for (const name of names) {
    if (q.pausedNames.delete(name)) emit(ctx, 'resumed', { name });
    const parked = q.parked.get(name);
    q.parked.delete(name);
    for (const id of parked?.members() ?? []) {
      const job = q.jobs.get(id);
      if (job && place(ctx, job, parked!.score(id)!)) claimable += 1;
    }
  }
  wake(ctx, claimable);
}

/** counts.lua: 'paused' counts waiting jobs that may not start (paused queue or name). */
export function countsOf(q: MemQueue): JobCounts {
  const total = waitingCount(q) + parkedCount(q);
  let paused = 0;
  if (q.paused) {
    paused = total;
  } else {
    // Like counts.lua: jobs of paused names, plus the waiting jobs of paused groups, at most the total.
    for (const job of q.jobs.values()) if (job.state === 'waiting' && q.pausedNames.has(job.name)) paused += 1;
    for (const g of q.groups.values()) if (g.paused) paused += g.wait.size;
    paused = Math.min(total, paused);
  }
  return {
    waiting: total - paused,
    paused,
    delayed: q.delayed.size,
    active: q.active.size,
    completed: q.completed.size,
    failed: q.failed.size,
    cancelled: q.cancelled.size,
    'waiting-children': q.waitingChildren.size,
  };
}

export function indexOf(q: MemQueue, state: JobState): SortedSet {
  switch (state) {
    case 'waiting':
      return q.wait;
    case 'delayed':
      return q.delayed;
    case 'active':
      return q.active;
    case 'completed':
      return q.completed;
    case 'failed':
      return q.failed;
    case 'cancelled':
      return q.cancelled;
    default:
      return q.waitingChildren;
  }
}

/** Like RedisStore: the state's index by score; 'waiting' is the ungrouped index (grouped and parked jobs are not listed). */
export function listIdsOf(q: MemQueue, state: JobState, start: number, end: number): string[] {
  if (state === 'waiting') {
    const ids = waitingLanes(q).map(([id]) => id);
    return ids.slice(start, end < 0 ? Math.max(0, ids.length + end + 1) : end + 1);
  }
  return indexOf(q, state).range(start, end);
}

export function groupStateOf(q: MemQueue, gid: string): GroupState {
  const g = q.groups.get(gid);
  return {
    id: gid,
    waiting: g?.wait.size ?? 0,
    active: g?.active ?? 0,
    paused: g?.paused ?? false,
    ...(g?.cap !== undefined && { concurrency: g.cap }),
    ...(g?.rl && { rateLimit: g.rl }),
  };
}

/** verify(): every job in exactly one index matching its state; active jobs hold a lease; group counters agree. */
export function verifyQueue(q: MemQueue): string[] {
  const problems: string[] = [];
  const where = new Map<string, string[]>();
  const note = (id: string, index: string) => where.set(id, [...(where.get(id) ?? []), index]);
  for (const state of JOB_STATES) for (const id of indexOf(q, state).members()) note(id, state);
  for (const id of q.fifo) note(id, 'waiting');
  for (const [gid, g] of q.groups) for (const id of g.wait.members()) note(id, `waiting (group ${gid})`);
  for (const [name, p] of q.parked) for (const id of p.members()) note(id, `waiting (parked ${name})`);
  const activeByGroup = new Map<string, number>();
  for (const [id, indexes] of where) {
    const job = q.jobs.get(id);
    if (!job) problems.push(`${id}: in ${indexes.join(', ')} without its job`);
    if (indexes.length > 1) problems.push(`${id}: in ${indexes.length} indexes (${indexes.join(', ')})`);
  }
  for (const job of q.jobs.values()) {
    const indexes = where.get(job.id) ?? [];
    if (indexes.length === 0) problems.push(`${job.id}: state ${job.state} but in no index`);
    else if (!indexes[0]!.startsWith(job.state)) problems.push(`${job.id}: state ${job.state} but in ${indexes[0]}`);
    if (job.state === 'active' && job.token === undefined) problems.push(`${job.id}: active without a lease token`);
    if (job.state === 'active' && job.group !== undefined) activeByGroup.set(job.group, (activeByGroup.get(job.group) ?? 0) + 1);
    if (job.state === 'waiting-children' && job.deps.size === 0 && job.hold === undefined) problems.push(`${job.id}: waiting-children with no pending child`);
  }
  for (const [gid, g] of q.groups) {
    if (g.active !== (activeByGroup.get(gid) ?? 0)) problems.push(`group ${gid}: counts ${g.active} active, holds ${activeByGroup.get(gid) ?? 0}`);
  }
  if (q.outbox.size > 0) problems.push(`outbox: ${q.outbox.size} undelivered parent notification(s)`);
  return problems;
}
