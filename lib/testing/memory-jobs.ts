import type { AddBatchOutcome, AddOutcome, CancelOutcome, CompletionStatus, ExtendOutcome, Failure, FailOutcome, Lease, PromoteOutcome, ReapOutcome, ReleaseOutcome } from '../store/store.js';
import {
  announceDelayed,
  cancelled,
  deadLetter,
  finish,
  leaveActive,
  parkedCount,
  place,
  unplace,
  waitingCount,
  waitScore,
  wake,
  type Ctx,
} from './memory-moves.js';
import { toRecord, type MemJob, type MemQueue, type Retention } from './memory-state.js';
import { ID_BASE, NUMBERED_ID, RENUMBER_MARGIN } from '../engine/ids.js';
import { emit, eventText } from './memory-events.js';
import { metricCompleted, metricFailed, metricReaped } from './memory-metrics.js';
import { advanceSchedulers } from './memory-schedulers.js';

/** A job to add, its Redis-shaped options already decoded by the store's adapter. */
export interface MemNewJob {
  readonly id: string;
  readonly name: string;
  readonly data: string;
  readonly opts: string;
  readonly delay: number;
  readonly priority: number;
  readonly lifo: boolean;
  readonly maxAttempts: number;
  readonly deadline: number;
  readonly dedup?: { readonly key: string; readonly ttl: number };
  readonly rc: Retention;
  readonly rf: Retention;
  readonly group?: string;
  /** The producer's trace context (JSON carrier), handed to whoever claims the job (field tc in Redis). */
  readonly traceContext?: string;
  /** NewJob.reportTaken: a taken numbered id is reported, not renumbered here. */
  readonly reportTaken?: true;
}

export function newJob(j: MemNewJob, now: number): MemJob {
  return {
    id: j.id, name: j.name, data: j.data, opts: j.opts, state: 'waiting', attempt: 0, maxAttempts: j.maxAttempts,
    createdAt: now, deadline: j.deadline, priority: j.priority, lifo: j.lifo, stalled: 0, claims: 0, group: j.group,
    cancel: false, rc: j.rc, rf: j.rf, watched: false, logs: [], deps: new Set(), results: new Map(), failures: new Map(),
    ...(j.traceContext !== undefined && { traceContext: j.traceContext }),
  };
}

function dedupHolder(ctx: Ctx, key: string): string | undefined {
  const held = ctx.q.dedup.get(key);
  if (held && held.expiresAt <= ctx.now) {
    ctx.q.dedup.delete(key);
    return undefined;
  }
  return held?.id;
}

/** A numbered id (lib/engine/ids) that another job holds: the counter went back (lua/includes/ids). */
const taken = (q: MemQueue, id: string): boolean => q.jobs.has(id) && NUMBERED_ID.test(id);

/** Moves the counter past every block drawn around `taken` (lua/includes/ids, lua/reserve-ids). */
export function passTaken(q: MemQueue, taken: string): void {
  q.ids = Math.max(q.ids, Number(taken) - ID_BASE + RENUMBER_MARGIN);
}

/** lua/includes/ids spool_renumber: past every block drawn around `id`, then the next number no job holds. */
function renumber(q: MemQueue, id: string): string {
  passTaken(q, id);
  let fresh: string;
  do fresh = String(ID_BASE + ++q.ids);
  while (q.jobs.has(fresh));
  return fresh;
}

/** add.lua: the batch is added whole, or refused whole by maxWaiting / maxWaitingPerGroup. */
export function addJobs(ctx: Ctx, sent: readonly MemNewJob[]): AddBatchOutcome {
  const { q, now } = ctx;
  let newWaiting = 0;
  const perGroup = new Map<string, number>();
  for (const j of sent) {
    if ((q.jobs.has(j.id) && (j.reportTaken || !taken(q, j.id))) || (j.dedup && dedupHolder(ctx, j.dedup.key) !== undefined) || j.delay > 0) continue;
    newWaiting += 1;
    if (j.group !== undefined) perGroup.set(j.group, (perGroup.get(j.group) ?? 0) + 1);
  }
  if (newWaiting > 0) {
    if (q.mw !== undefined && waitingCount(q) + parkedCount(q) + newWaiting > q.mw) return { status: 'full', limit: q.mw };
    if (q.mwg !== undefined) {
      for (const [group, n] of perGroup) {
        if ((q.groups.get(group)?.wait.size ?? 0) + n > q.mwg) return { status: 'full', limit: q.mwg, group };
      }
    }
  }
  const out: AddOutcome[] = [];
  let woken = 0;
  let earliest: { id: string; at: number } | undefined;
  for (const given of sent) {
    if (given.reportTaken && taken(q, given.id)) {
      out.push({ created: false, id: given.id, existing: null, taken: true });
      continue;
    }
    const j = taken(q, given.id) ? { ...given, id: renumber(q, given.id) } : given;
    const known = q.jobs.has(j.id) ? j.id : j.dedup ? dedupHolder(ctx, j.dedup.key) : undefined;
    if (known !== undefined) {
      const existing = q.jobs.get(known);
      out.push({ created: false, id: known, existing: existing ? toRecord(existing) : null });
      continue;
    }
    const job = newJob(j, now);
    q.jobs.set(j.id, job);
    if (j.dedup) {
      q.dedup.set(j.dedup.key, { id: j.id, expiresAt: j.dedup.ttl > 0 ? now + j.dedup.ttl : Infinity });
      if (j.dedup.ttl === 0) job.dedupKey = j.dedup.key;
    }
    if (j.delay > 0) {
      job.state = 'delayed';
      job.runAt = now + j.delay;
      q.delayed.add(j.id, job.runAt);
      if (!earliest || job.runAt < earliest.at) earliest = { id: j.id, at: job.runAt };
    } else {
      job.runAt = now;
      if (place(ctx, job, waitScore(q, j.priority, j.lifo))) woken += 1;
    }
    emit(ctx, 'added', { jobId: j.id, name: j.name, state: job.state });
    if (job.state === 'delayed') emit(ctx, 'delayed', { jobId: j.id, delay: j.delay, runAt: job.runAt });
    out.push({ created: true, id: j.id, state: job.state, createdAt: now, runAt: job.runAt });
  }
  wake(ctx, woken);
  if (earliest) announceDelayed(ctx, earliest.id, earliest.at - now);
  return { status: 'added', jobs: out };
}

/** The job under the current token, or why not: the lease-checked scripts' opening. */
export function held(ctx: Ctx, lease: Lease): { job: MemJob } | { already: MemJob } | null {
  const job = ctx.q.jobs.get(lease.id);
  if (job && job.token === lease.token) return { job };
  if (job && job.finishedToken === lease.token) return { already: job };
  return null;
}

/** One job of complete.lua (includes/complete-batch): completed, or cancelled when a cancel request won. */
export function completeJob(ctx: Ctx, lease: Lease, result: string, durationMs: number | undefined): CompletionStatus {
  const h = held(ctx, lease);
  if (!h) return { status: 'lost' };
  if ('already' in h) return { status: 'already', state: h.already.state };
  const { job } = h;
  job.result = result;
  leaveActive(ctx, job, true);
  if (job.cancel) {
    cancelled(ctx, job);
    return { status: 'cancelled' };
  }
  emit(ctx, 'completed', { jobId: job.id, size: Buffer.byteLength(result) });
  finish(ctx, job, ctx.q.completed, 'completed', job.rc);
  metricCompleted(ctx, durationMs, job.name);
  return { status: 'completed' };
}

/** fail.lua: retry (delayed or waiting) or dead-letter; a pending cancel wins. */
export function failJob(ctx: Ctx, lease: Lease, f: Failure): FailOutcome {
  const h = held(ctx, lease);
  if (!h) return { status: 'lost' };
  if ('already' in h) return { status: 'already', state: h.already.state, runAt: 0 };
  const { job } = h;
  const { now } = ctx;
  leaveActive(ctx, job, true);
  job.error = { message: f.message, stack: f.stack, code: f.code };
  if (job.cancel) {
    cancelled(ctx, job);
    return { status: 'moved', state: 'cancelled', runAt: 0 };
  }
  let delay = f.retryDelay;
  let reason = f.reason;
  if (delay >= 0 && job.deadline > 0 && now + delay > job.deadline) [delay, reason] = [-1, 'deadline'];
  metricFailed(ctx, delay, job.name);
  if (delay < 0) {
    deadLetter(ctx, job, reason, f.message, f.stack, f.code);
    return { status: 'moved', state: 'failed', runAt: 0 };
  }
  emit(ctx, 'failed', { jobId: job.id, next: 'retry', reason, message: eventText(f.message), delay });
  if (delay === 0) {
    job.runAt = now;
    if (place(ctx, job, waitScore(ctx.q, job.priority, job.lifo))) wake(ctx, 1);
    return { status: 'moved', state: 'waiting', runAt: now };
  }
  job.state = 'delayed';
  job.runAt = now + delay;
  ctx.q.delayed.add(job.id, job.runAt);
  emit(ctx, 'delayed', { jobId: job.id, delay, runAt: job.runAt });
  announceDelayed(ctx, job.id, delay);
  return { status: 'moved', state: 'delayed', runAt: job.runAt };
}

/** throttle.lua: back to delayed without spending the attempt; the queue starts nothing until then. */
export function throttleJob(ctx: Ctx, lease: Lease, after: number, wholeQueue: boolean): FailOutcome {
  const h = held(ctx, lease);
  if (!h) return { status: 'lost' };
  if ('already' in h) return { status: 'already', state: h.already.state, runAt: 0 };
  const { job } = h;
  leaveActive(ctx, job, true);
  if (job.cancel) {
    cancelled(ctx, job);
    return { status: 'moved', state: 'cancelled', runAt: 0 };
  }
  job.attempt -= 1;
  job.state = 'delayed';
  job.runAt = ctx.now + after;
  ctx.q.delayed.add(job.id, job.runAt);
  emit(ctx, 'delayed', { jobId: job.id, delay: after, runAt: job.runAt });
  if (wholeQueue) ctx.q.lu = Math.max(ctx.q.lu, job.runAt);
  announceDelayed(ctx, job.id, after);
  return { status: 'moved', state: 'delayed', runAt: job.runAt };
}

/** extend.lua: renews the leases still held under their tokens. */
export function extendLeases(ctx: Ctx, lockMs: number, leases: readonly Lease[]): ExtendOutcome[] {
  return leases.map((lease) => {
    const job = ctx.q.jobs.get(lease.id);
    if (!job || job.token !== lease.token) return 'lost';
    ctx.q.active.update(job.id, ctx.now + lockMs);
    return job.cancel ? 'cancel-requested' : 'renewed';
  });
}

/** release.lua: graceful shutdown hands the job back at its place, attempt not counted. */
export function releaseJob(ctx: Ctx, lease: Lease): ReleaseOutcome {
  const job = ctx.q.jobs.get(lease.id);
  if (!job || job.token !== lease.token) return 'lost';
  leaveActive(ctx, job, false);
  job.attempt -= 1;
  if (job.cancel) {
    cancelled(ctx, job);
    return 'cancelled';
  }
  if (place(ctx, job, job.ws ?? waitScore(ctx.q, job.priority, job.lifo))) wake(ctx, 1);
  return 'released';
}

/** promote.lua: due delayed jobs to waiting, in due order. */
export function promoteDue(ctx: Ctx, limit: number): PromoteOutcome {
  const { q, now } = ctx;
  let moved = 0;
  // Due schedulers move on first: missed policy applied, next tick armed (includes/schedulers).
  const [ticked, refill] = advanceSchedulers(ctx);
  let claimable = ticked;
  for (const id of q.delayed.upTo(now, limit)) {
    q.delayed.delete(id);
    const job = q.jobs.get(id);
    if (!job) continue;
    if (place(ctx, job, waitScore(q, job.priority, job.lifo))) claimable += 1;
    moved += 1;
  }
  wake(ctx, claimable);
  const next = q.delayed.first();
  return { moved, nextDueIn: next ? Math.max(0, next[1] - now) : null, ...(refill.length > 0 && { refill }) };
}

/** reap.lua: expired leases are taken back: re-delivered with a stall counted, dead-lettered past maxStalled, or cancelled. */
export function reapExpired(ctx: Ctx, maxStalled: number, limit: number): ReapOutcome[] {
  const { q, now } = ctx;
  const out: ReapOutcome[] = [];
  let requeued = 0;
  for (const id of q.active.upTo(now, limit)) {
    const job = q.jobs.get(id);
    if (!job) {
      q.active.delete(id);
      continue;
    }
    if (job.token !== undefined) ctx.signals.owls.push({ kind: 'lost', queue: q.name, id, token: job.token });
    leaveActive(ctx, job, false);
    if (job.cancel) {
      cancelled(ctx, job);
      out.push({ id, state: 'cancelled' });
      continue;
    }
    job.stalled += 1;
    job.attempt -= 1;
    emit(ctx, 'stalled', { jobId: id, next: job.stalled > maxStalled ? 'dead' : 'retry' });
    if (job.stalled > maxStalled) {
      deadLetter(ctx, job, 'stalled', `job stalled more than maxStalledCount (${maxStalled}) times: its worker died or blocked past the lease`, '', 'StalledError');
      out.push({ id, state: 'failed' });
    } else {
      if (place(ctx, job, job.ws ?? waitScore(q, job.priority, job.lifo))) requeued += 1;
      out.push({ id, state: 'waiting' });
    }
    metricReaped(ctx, out[out.length - 1]!.state, job.name);
  }
  wake(ctx, requeued);
  return out;
}

/** cancel.lua: waiting/delayed/waiting-children at once; active by request (the holder hears it). */
export function cancelJob(ctx: Ctx, id: string): CancelOutcome {
  const { q } = ctx;
  const job = q.jobs.get(id);
  if (!job) return { status: 'unknown', children: [] };
  const children = [...job.deps].map((ref) => {
    const at = ref.indexOf('\n');
    return { queue: ref.slice(0, at), id: ref.slice(at + 1) };
  });
  if (job.state === 'waiting' || job.state === 'delayed' || job.state === 'waiting-children') {
    if (job.state === 'waiting') unplace(q, job);
    else if (job.state === 'delayed') q.delayed.delete(id);
    else q.waitingChildren.delete(id);
    cancelled(ctx, job);
    return { status: 'cancelled', children };
  }
  if (job.state === 'active') {
    job.cancel = true;
    ctx.signals.owls.push({ kind: 'cancel', queue: q.name, id, token: job.token ?? '' });
    return { status: 'requested', children };
  }
  return { status: 'finished', state: job.state, children };
}

/** progress.lua: only the lease holder writes. */
export function recordProgress(ctx: Ctx, lease: Lease, progress: string): boolean {
  const job = ctx.q.jobs.get(lease.id);
  if (!job || job.token !== lease.token) return false;
  job.progress = progress;
  if (Buffer.byteLength(progress) <= 1024) emit(ctx, 'progress', { jobId: job.id, progress });
  else emit(ctx, 'progress', { jobId: job.id, size: Buffer.byteLength(progress) });
  return true;
}

/** update-data.lua: only the lease holder replaces the payload. */
export function recordData(ctx: Ctx, lease: Lease, data: string): boolean {
  const job = ctx.q.jobs.get(lease.id);
  if (!job || job.token !== lease.token) return false;
  job.data = data;
  return true;
}

/** log.lua: only the lease holder appends; the newest `keep` lines stay. Null when the lease is lost. */
export function appendLog(ctx: Ctx, lease: Lease, line: string, keep: number): number | null {
  const job = ctx.q.jobs.get(lease.id);
  if (!job || job.token !== lease.token) return null;
  job.logs.push(line);
  if (job.logs.length > keep) job.logs.splice(0, job.logs.length - keep);
  return job.logs.length;
}
