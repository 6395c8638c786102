import type { MissedPolicy, SchedulerRecord, SchedulerStore, SchedulerWrite } from '../store/scheduler-store.js';
import type { NewJob } from '../store/store.js';
import { decodeNewJob } from './memory-adapter.js';
import { newJob } from './memory-jobs.js';
import { announceDelayed, dropJob, parkedCount, place, waitingCount, waitScore, type Ctx } from './memory-moves.js';
import type { MemQueue } from './memory-state.js';

/**
 * Cron and every-N schedulers in memory: lua/scheduler-*.lua and
 * lua/includes/schedulers step by step. A scheduler's pending tick is a
 * delayed job `<id>:<tick ms>`; the promote that finds it due applies the
 * missed policy and arms the next tick, on the store's clock, so a test can
 * advance a day and see a day of ticks.
 */

/** 'all' runs at most this many missed ticks per promotion; the rest count as skipped. */
const CATCH_UP = 50;
/** Fewer cron times left than this: the promote asks the engine for more. */
const REFILL_BELOW = 25;
const KEEP = 100;
/** A cron scheduler out of times is due again after this long, to ask again. */
const STARVED_RETRY = 60_000;
/** A tick held back (queue paused or full) is looked at again after this long. */
const HOLD_RETRY = 1000;

export interface MemScheduler {
  readonly spec: string;
  readonly kind: 'cron' | 'every';
  readonly every: number;
  readonly anchor: number;
  /** endAt, 0 = none. */
  readonly stop: number;
  readonly limit: number;
  readonly missed: MissedPolicy;
  /** The job every tick copies. */
  readonly tpl: NewJob;
  times: number[];
  count: number;
  skipped: number;
  next: number | null;
  starved: boolean;
  /** scheduler-pause.lua: kept, no pending tick until resumed. */
  paused?: boolean;
  last?: string;
  lastAt?: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** Runs a body as one transition of the store (MemoryStore.run). */
export type RunTransition = <T>(what: string, queue: string, body: (ctx: Ctx) => T) => Promise<T>;

/** spool_sched_job: the tick's job, written delayed; undefined when that id already names a job. */
function tickJob(ctx: Ctx, sid: string, h: MemScheduler, tick: number): string | undefined {
  const id = `${sid}:${tick}`;
  if (ctx.q.jobs.has(id)) return undefined;
  const job = newJob(decodeNewJob({ ...h.tpl, id, delay: 0, deadline: 0 }), ctx.now);
  job.state = 'delayed';
  job.runAt = tick;
  ctx.q.jobs.set(id, job);
  return id;
}

/** spool_sched_drop_pending: the tick's job goes if it is still delayed. */
function dropPending(q: MemQueue, sid: string, tick: number): void {
  const id = `${sid}:${tick}`;
  if (q.jobs.get(id)?.state === 'delayed' && q.delayed.delete(id)) dropJob(q, id);
}

function placeTick(ctx: Ctx, id: string): boolean {
  const job = ctx.q.jobs.get(id);
  return job !== undefined && place(ctx, job, waitScore(ctx.q, job.priority, job.lifo));
}

/** spool_sched_arm: the next pending tick after now, within endAt and limit; returns it and whether the cron list runs low. */
function arm(ctx: Ctx, sid: string, h: MemScheduler): [next: number | null, low: boolean] {
  const { q, now } = ctx;
  let next: number | undefined;
  let from = 0;
  if (h.kind === 'every') {
    next = now < h.anchor ? h.anchor : h.anchor + (Math.floor((now - h.anchor) / h.every) + 1) * h.every;
  } else {
    while (h.times[from] !== undefined && h.times[from]! <= now) from += 1;
    next = h.times[from];
    if (next !== undefined) from += 1;
  }
  const listed = h.times.length - from;
  h.times = h.times.slice(from);
  if (next === undefined) {
    h.next = null;
    h.starved = true;
    q.schedIndex.add(sid, now + STARVED_RETRY);
    return [null, true];
  }
  h.starved = false;
  if ((h.stop > 0 && next > h.stop) || (h.limit > 0 && h.count >= h.limit)) {
    h.next = null;
    q.schedIndex.add(sid, Infinity);
    return [null, false];
  }
  const id = tickJob(ctx, sid, h, next);
  if (id !== undefined) q.delayed.add(id, next);
  h.next = next;
  q.schedIndex.add(sid, next);
  return [next, h.kind === 'cron' && listed < REFILL_BELOW];
}

/** spool_sched_room: tick jobs the queue takes now (none while paused; maxWaiting less what waits). */
function room(q: MemQueue): number {
  if (q.paused) return 0;
  return q.mw === undefined ? Infinity : q.mw - waitingCount(q) - parkedCount(q);
}

/** spool_sched_hold: the pending tick stays delayed (rescored, runAt kept); the scheduler is due again in HOLD_RETRY. */
function hold(ctx: Ctx, sid: string, t0: number): void {
  const at = ctx.now + HOLD_RETRY;
  ctx.q.schedIndex.add(sid, at);
  const id = `${sid}:${t0}`;
  if (ctx.q.delayed.score(id) !== undefined) ctx.q.delayed.add(id, at);
}

/** spool_sched_advance (promote's part): due schedulers apply their missed policy and arm their next tick, or are held while the queue has no room. Returns the claimable jobs placed and the ids to refill. */
export function advanceSchedulers(ctx: Ctx): [claimable: number, refill: string[]] {
  const { q, now } = ctx;
  let claimable = 0;
  const refill: string[] = [];
  const due = q.schedIndex.upTo(now, 100);
  let free = due.length > 0 ? room(q) : 0;
  for (const sid of due) {
    const h = q.schedulers.get(sid);
    if (!h) {
      q.schedIndex.delete(sid);
      continue;
    }
    if (h.next !== null && free <= 0) {
      hold(ctx, sid, h.next);
      continue;
    }
    const t0 = h.next;
    if (t0 !== null) {
      const fell: number[] = [];
      let total = 0;
      if (h.kind === 'every') {
        const upto = h.stop > 0 && h.stop < now ? h.stop : now;
        if (upto > t0) total = Math.floor((upto - t0) / h.every);
        for (let k = 1; k <= Math.min(total, CATCH_UP); k++) fell.push(t0 + k * h.every);
      } else {
        for (const t of h.times) {
          if (t > now || (h.stop > 0 && t > h.stop)) break;
          total += 1;
          if (total <= CATCH_UP) fell.push(t);
        }
      }
      if (h.missed === 'skip' && total > 0) {
        dropPending(q, sid, t0);
        h.skipped += total + 1;
      } else {
        h.count += 1;
        free -= 1;
        let [last, lastAt, ran] = [`${sid}:${t0}`, t0, 0];
        if (h.missed === 'all' && fell.length > 0) {
          // t0 goes first, so the catch-up runs in tick order.
          if (q.delayed.delete(`${sid}:${t0}`) && placeTick(ctx, `${sid}:${t0}`)) claimable += 1;
          for (const t of fell) {
            if ((h.limit > 0 && h.count >= h.limit) || free <= 0) break;
            const id = tickJob(ctx, sid, h, t);
            if (id !== undefined && placeTick(ctx, id)) claimable += 1;
            [h.count, ran, last, lastAt, free] = [h.count + 1, ran + 1, `${sid}:${t}`, t, free - 1];
          }
        }
        h.skipped += total - ran;
        [h.last, h.lastAt] = [last, lastAt];
      }
    }
    if (arm(ctx, sid, h)[1]) refill.push(sid);
  }
  return [claimable, refill];
}

function record(id: string, h: MemScheduler): SchedulerRecord {
  return {
    id,
    spec: h.spec,
    next: h.next,
    times: [...h.times],
    count: h.count,
    skipped: h.skipped,
    ...(h.last !== undefined && { lastJobId: h.last }),
    ...(h.lastAt !== undefined && { lastTickAt: h.lastAt }),
    createdAt: h.createdAt,
    updatedAt: h.updatedAt,
    ...(h.paused && { paused: true }),
  };
}

/** The SchedulerStore of a MemoryStore: each call one transition, as each is one script on Redis. */
export class MemorySchedulers implements SchedulerStore {
  /** ticking false: schedulers are kept and listed but arm no tick (MemoryStore options.schedules). */
  constructor(
    private readonly run: RunTransition,
    private readonly ticking = true,
  ) {}

  /** scheduler-upsert.lua: the same spec changes nothing; a new one replaces the pending tick and starts the count afresh. */
  upsert(queue: string, s: SchedulerWrite): Promise<{ changed: boolean; next: number | null }> {
    return this.run('upsertScheduler', queue, (ctx) => {
      const cur = ctx.q.schedulers.get(s.id);
      if (cur?.spec === s.spec) return { changed: false, next: cur.next };
      if (cur?.next != null) dropPending(ctx.q, s.id, cur.next);
      const h: MemScheduler = {
        spec: s.spec, kind: s.kind, every: s.every, anchor: s.anchor, stop: s.endAt, limit: s.limit, missed: s.missed, tpl: s.job,
        times: [...s.times], count: 0, skipped: 0, next: null, starved: false, createdAt: cur?.createdAt ?? ctx.now, updatedAt: ctx.now,
      };
      ctx.q.schedulers.set(s.id, h);
      if (!this.ticking) return { changed: true, next: null };
      const [next] = arm(ctx, s.id, h);
      if (next !== null) announceDelayed(ctx, `${s.id}:${next}`, next - ctx.now);
      return { changed: true, next };
    });
  }

  /** scheduler-refill.lua: appends the times after the last one held; a starved scheduler gets its tick now. */
  refill(queue: string, id: string, spec: string, times: readonly number[]): Promise<number> {
    return this.run('refillScheduler', queue, (ctx) => {
      const h = ctx.q.schedulers.get(id);
      if (h?.spec !== spec) return -1;
      let last = h.times.at(-1) ?? h.next ?? 0;
      let added = 0;
      for (const t of times) {
        if (t <= last || h.times.length >= KEEP) continue;
        h.times.push(t);
        last = t;
        added += 1;
      }
      if (h.starved && this.ticking && !h.paused) {
        if (h.times.length === 0) {
          [h.next, h.starved] = [null, false];
          ctx.q.schedIndex.add(id, Infinity);
          return added;
        }
        const [next] = arm(ctx, id, h);
        if (next !== null) announceDelayed(ctx, `${id}:${next}`, next - ctx.now);
      }
      return added;
    });
  }

  /** scheduler-remove.lua: the scheduler and its pending tick while still delayed; promoted ticks run on. */
  remove(queue: string, id: string): Promise<boolean> {
    return this.run('removeScheduler', queue, ({ q }) => {
      const h = q.schedulers.get(id);
      const indexed = q.schedIndex.delete(id);
      const known = q.schedulers.delete(id) || indexed;
      if (h?.next != null) dropPending(q, id, h.next);
      return known;
    });
  }

  /** scheduler-pause.lua: the pending tick goes (while delayed); nothing is armed until resume. */
  pause(queue: string, id: string): Promise<'paused' | 'already' | 'unknown'> {
    return this.run('pauseScheduler', queue, ({ q }) => {
      const h = q.schedulers.get(id);
      if (!h) return 'unknown';
      if (h.paused) return 'already';
      if (h.next !== null) {
        dropPending(q, id, h.next);
        // The pending tick's time goes back to the list: a resume before it arms it again.
        if (h.kind === 'cron') h.times.unshift(h.next);
      }
      [h.paused, h.next] = [true, null];
      q.schedIndex.add(id, Infinity);
      return 'paused';
    });
  }

  /** scheduler-resume.lua: the next tick after now is armed; ticks that fell while paused do not run. */
  resume(queue: string, id: string): Promise<{ outcome: 'resumed' | 'running' | 'unknown'; next: number | null }> {
    return this.run('resumeScheduler', queue, (ctx) => {
      const h = ctx.q.schedulers.get(id);
      if (!h) return { outcome: 'unknown' as const, next: null };
      if (!h.paused) return { outcome: 'running' as const, next: h.next };
      h.paused = false;
      if (!this.ticking) return { outcome: 'resumed' as const, next: null };
      const [next] = arm(ctx, id, h);
      if (next !== null) announceDelayed(ctx, `${id}:${next}`, next - ctx.now);
      return { outcome: 'resumed' as const, next };
    });
  }

  get(queue: string, id: string): Promise<SchedulerRecord | null> {
    return this.run('getScheduler', queue, ({ q }) => {
      const h = q.schedulers.get(id);
      return h ? record(id, h) : null;
    });
  }

  list(queue: string): Promise<SchedulerRecord[]> {
    return this.run('getSchedulers', queue, ({ q }) => [...q.schedulers.keys()].sort().map((id) => record(id, q.schedulers.get(id)!)));
  }
}
