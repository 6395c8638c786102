import type { JobRecord } from '../store/store.js';
import { deadLetter, groupCap, groupReady, groupsReopen, rateWindow, type Ctx } from './memory-moves.js';
import { groupOf, parkedOf, toRecord, type MemGroup, type MemQueue } from './memory-state.js';
import { emit } from './memory-events.js';
import { metricDead } from './memory-metrics.js';

const TWO_32 = 4294967296;
const TWO_33 = 8589934592;

/** A grouped job's group as the claim found it (includes/claim-pop's `pick`). */
interface Pick {
  readonly gid: string;
  readonly g: MemGroup;
  readonly cap: number;
  readonly active: number;
  readonly allowance: number;
  readonly reopen: number;
  readonly fresh: boolean;
  readonly rated: boolean;
}

type Popped = { readonly id: string; readonly score: number; readonly pick?: Pick };

export interface ClaimRequest {
  readonly count: number;
  readonly workerId: string;
  readonly lockMs: number;
  /** Capped names and how many more of each this claim may take. */
  readonly room?: Map<string, number>;
  /** Only jobs of this name (QueueTesting's runNext(queue, name)); the others stay where they wait. */
  readonly only?: string;
}

function ringRemove(ctx: Ctx, gid: string): void {
  const at = ctx.q.ring.lastIndexOf(gid);
  if (at >= 0) ctx.q.ring.splice(at, 1);
}

/**
 * includes/claim-pop spool_pop: the next waiting job in turn. The ungrouped jobs take a turn
 * once every group in the ring had one since their last (meta rr).
 */
function pop(ctx: Ctx, grouped: boolean): Popped | undefined {
  const { q, now } = ctx;
  if (grouped && q.ring.length > 0 && (q.rr < q.ring.length || (q.wait.size === 0 && q.fifo.length === 0))) {
    for (let turns = q.ring.length; turns > 0 && q.ring.length > 0; turns--) {
      const gid = q.ring.shift()!;
      q.ring.push(gid);
      const g = groupOf(q, gid);
      const cap = groupCap(q, gid);
      const limit = g.rl ?? q.grl;
      const [allowance, reopen, fresh] = rateWindow(limit, g.rlw, g.rln, now);
      if (g.paused || (cap > 0 && g.active >= cap)) {
        ringRemove(ctx, gid);
        g.sched = false;
      } else if (allowance <= 0) {
        ringRemove(ctx, gid);
        q.glimited.add(gid, reopen);
      } else {
        const top = g.wait.popMin();
        if (top) {
          if (q.rr < q.ring.length) q.rr += 1;
          return { id: top[0], score: top[1], pick: { gid, g, cap, active: g.active, allowance, reopen, fresh, rated: limit !== undefined } };
        }
        ringRemove(ctx, gid);
        g.sched = false;
      }
    }
  }
  const top = popUngrouped(q);
  if (top) q.rr = 0;
  return top;
}

/** includes/claim-pop spool_pop_wait: wait's priority 0 first, then the fifo list, then wait's higher priorities. */
function popUngrouped(q: MemQueue): Popped | undefined {
  const first = q.wait.first();
  if ((first === undefined || first[1] >= TWO_33) && q.fifo.length > 0) {
    const id = q.fifo.shift()!;
    return { id, score: q.jobs.get(id)?.ws ?? TWO_32 };
  }
  const top = q.wait.popMin();
  return top && { id: top[0], score: top[1] };
}

/** spool_group_started: count the start; out of the ring when the group can take no more. */
function groupStarted(ctx: Ctx, pick: Pick): void {
  const { g } = pick;
  g.active += 1;
  if (pick.rated) {
    if (pick.fresh) {
      g.rlw = ctx.now;
      g.rln = 1;
    } else {
      g.rln += 1;
    }
  }
  if (pick.allowance - 1 <= 0) {
    ringRemove(ctx, pick.gid);
    ctx.q.glimited.add(pick.gid, pick.reopen);
  } else if ((pick.cap > 0 && pick.active + 1 >= pick.cap) || g.wait.size === 0) {
    ringRemove(ctx, pick.gid);
    g.sched = false;
  }
}

/**
 * includes/claim-batch spool_claim: waiting -> active for up to `count` jobs
 * under fresh lease tokens, through every gate (pause, throttle, rate limit,
 * group caps and windows, paused names, name room, deadlines).
 */
export function claimJobs(ctx: Ctx, req: ClaimRequest): { jobs: JobRecord[]; waitMs: number } {
  const { q, now } = ctx;
  const out: JobRecord[] = [];
  let count = req.count;
  if (count <= 0 || q.paused) return { jobs: out, waitMs: 0 };
  if (q.lu > 0 && now < q.lu) return { jobs: out, waitMs: q.lu - now };
  const [allowance, reopen, fresh] = rateWindow(q.rl, q.rlw, q.rln, now);
  if (allowance <= 0) return { jobs: out, waitMs: reopen - now };
  count = Math.min(count, allowance);
  // includes/global-cap: at most the cap less the active jobs, across every worker.
  const free = q.gc === undefined ? Infinity : q.gc - q.active.size;
  if (free <= 0) {
    q.gcFull = true;
    return { jobs: out, waitMs: 0 };
  }
  count = Math.min(count, free);
  const grouped = [...q.groups.values()].some((g) => g.wait.size > 0);
  if (grouped) groupsReopen(q, now);
  const skipped: Popped[] = [];
  let waitMs = 0;
  // A name filter may have to step over every other waiting job to find one of its name.
  for (let budget = count + 100 + (req.only === undefined ? 0 : q.jobs.size); out.length < count && budget > 0; budget--) {
    const popped = pop(ctx, grouped);
    if (!popped) {
      const reopenAt = grouped ? q.glimited.first() : undefined;
      if (reopenAt) waitMs = Math.max(1, reopenAt[1] - now);
      break;
    }
    const job = q.jobs.get(popped.id);
    if (!job) continue; // an index entry without its job: dropped
    if (q.pausedNames.has(job.name)) {
      parkedOf(q, job.name).add(job.id, popped.score);
    } else if (req.room?.get(job.name) === 0 || (req.only !== undefined && job.name !== req.only)) {
      skipped.push(popped);
    } else if (job.deadline > 0 && now > job.deadline) {
      deadLetter(ctx, job, 'deadline', 'deadline passed before the job could start', '', 'DeadlineExceededError');
      metricDead(ctx, job.name);
    } else {
      const room = req.room?.get(job.name);
      if (room !== undefined) req.room!.set(job.name, room - 1);
      job.claims += 1;
      job.attempt += 1;
      job.state = 'active';
      job.token = `${req.workerId}:${job.claims}`;
      job.startedAt = now;
      emit(ctx, 'active', { jobId: job.id, attempt: job.attempt });
      q.active.add(job.id, now + req.lockMs);
      if (popped.pick) groupStarted(ctx, popped.pick);
      out.push(toRecord(job));
    }
  }
  for (const s of skipped) {
    if (s.pick) {
      s.pick.g.wait.add(s.id, s.score);
      groupReady(q, s.pick.gid);
    } else {
      q.wait.add(s.id, s.score);
    }
  }
  if (out.length >= free) q.gcFull = true;
  if (q.rl && out.length >= allowance && waitMs === 0) {
    // This claim used up the queue's window: say when it reopens.
    waitMs = Math.max(1, reopen - now);
  }
  if (q.rl && out.length > 0) {
    if (fresh) {
      q.rlw = now;
      q.rln = out.length;
    } else {
      q.rln += out.length;
    }
  }
  return { jobs: out, waitMs };
}
