import { GAUGE_LAG, GAUGE_WAITING, minuteOfFields } from '../store/metrics-reply.js';
import type { JobCounts, MetricsRecord, MinuteRecord } from '../store/store.js';
import type { Ctx } from './memory-moves.js';
import type { MemQueue } from './memory-state.js';

/**
 * lua/includes/metrics and lua/metrics.lua in memory: per-minute counters
 * of a queue on the store's clock, written by the transitions, with the
 * same fields, duration buckets and last-hour window.
 */

const MINUTE = 60_000;
/** h0..h20: at most 2^k ms; h21: longer. */
const DURATION_TOP = 21;
/** SPOOL_METRIC_NAMES: job names with counters of their own. */
const METRIC_NAMES = 20;
/** Redis expires a minute 62 minutes after its first write; older ones are never read. */
const KEEP_MINUTES = 62;
/** Wait scores (includes/place): one priority band spans 2^33, FIFO scores start 2^32 into it, LIFO ones below. */
const BAND = 8589934592;
const FIFO = 4294967296;

function count(ctx: Ctx, field: string, by = 1): void {
  const minute = Math.floor(ctx.now / MINUTE);
  let m = ctx.q.metrics.get(minute);
  if (!m) {
    m = new Map();
    ctx.q.metrics.set(minute, m);
    for (const old of ctx.q.metrics.keys()) if (old <= minute - KEEP_MINUTES) ctx.q.metrics.delete(old);
  }
  m.set(field, (m.get(field) ?? 0) + by);
}

/** spool_metric_suffix: ':<name>' while the name holds (or takes) a slot, '' for the other names. */
function suffix(ctx: Ctx, name: string): string {
  const slots = ctx.q.metricNames;
  const minute = Math.floor(ctx.now / MINUTE);
  const seen = slots.get(name);
  if (seen === undefined && slots.size >= METRIC_NAMES) {
    let oldest: [string, number] | undefined;
    for (const entry of slots) if (!oldest || entry[1] < oldest[1] || (entry[1] === oldest[1] && entry[0] < oldest[0])) oldest = entry;
    if (oldest![1] > minute - 60) return '';
    slots.delete(oldest![0]);
  }
  if (seen === undefined || seen < minute) slots.set(name, minute);
  return `:${name}`;
}

/** spool_duration_bucket: the smallest k with ms <= 2^k, capped. */
export function durationBucket(ms: number): number {
  let k = 0;
  while (k < DURATION_TOP && 2 ** k < ms) k += 1;
  return k;
}

/** spool_metric_completed: undefined or negative duration: not measured. */
export function metricCompleted(ctx: Ctx, duration: number | undefined, name: string): void {
  const s = suffix(ctx, name);
  if (duration !== undefined && Number.isFinite(duration) && duration >= 0) {
    const ms = Math.ceil(duration);
    count(ctx, `h${durationBucket(ms)}${s}`);
    if (ms > 0) count(ctx, `ms${s}`, ms);
  } else {
    count(ctx, `hn${s}`);
  }
}

/** spool_metric_failed: a failed attempt, retried (delay >= 0) or dead. */
export function metricFailed(ctx: Ctx, delay: number, name: string): void {
  const s = suffix(ctx, name);
  count(ctx, `f${s}`);
  count(ctx, `${delay < 0 ? 'd' : 'r'}${s}`);
}

/** spool_metric_reaped */
export function metricReaped(ctx: Ctx, state: string, name: string): void {
  if (state === 'cancelled') return;
  const s = suffix(ctx, name);
  count(ctx, `s${s}`);
  if (state === 'failed') count(ctx, `d${s}`);
}

/** spool_metric_dead: dead-lettered outside fail and reap. */
export function metricDead(ctx: Ctx, name: string): void {
  count(ctx, `d${suffix(ctx, name)}`);
}

/** includes/waiting-age: the oldest ready job among the first of each line (runAt), null when none waits. */
function oldestWaiting(q: MemQueue): number | null {
  let oldest: number | null = null;
  const consider = (id: string | undefined): void => {
    const runAt = id === undefined ? undefined : q.jobs.get(id)?.runAt;
    if (runAt !== undefined && (oldest === null || runAt < oldest)) oldest = runAt;
  };
  // Per priority band of the ungrouped jobs (at most 16): the first FIFO job and the last LIFO one, as metrics.lua reads them.
  const bands = new Map<number, { fifo?: string; lifo?: string }>();
  for (const id of q.wait.members()) {
    const score = q.wait.score(id)!;
    const band = Math.floor(score / BAND) * BAND;
    let b = bands.get(band);
    if (!b) {
      if (bands.size === 16) break;
      b = {};
      bands.set(band, b);
    }
    if (score >= band + FIFO) b.fifo ??= id;
    else b.lifo = id;
  }
  for (const b of bands.values()) {
    consider(b.fifo);
    consider(b.lifo);
  }
  consider(q.fifo[0]);
  for (const gid of q.ring.slice(0, 16)) consider(q.groups.get(gid)?.wait.first()?.[0]);
  return oldest;
}

/** metrics.lua: the oldest ready job, the earliest delayed job, the last 60 minutes (with their gauge samples). */
export function metricsOf(q: MemQueue, now: number, counts: JobCounts): MetricsRecord {
  const minute = Math.floor(now / MINUTE);
  const minutes: MinuteRecord[] = [];
  for (let m = minute - 59; m <= minute; m++) minutes.push(minuteOf(m * MINUTE, q.metrics.get(m)));
  return { counts, now, oldestWaitingSince: oldestWaiting(q), earliestDelayedAt: q.delayed.first()?.[1] ?? null, minutes };
}

/** gauges.lua: the minute's one sample of the oldest waiting age and the delayed lag; false when it had one. */
export function sampleGaugesOf(ctx: Ctx): boolean {
  const sampled = ctx.q.metrics.get(Math.floor(ctx.now / MINUTE));
  if (sampled?.has(GAUGE_WAITING)) return false;
  const oldest = oldestWaiting(ctx.q);
  const earliest = ctx.q.delayed.first()?.[1];
  count(ctx, GAUGE_WAITING, oldest === null ? 0 : Math.max(0, ctx.now - oldest));
  count(ctx, GAUGE_LAG, earliest === undefined ? 0 : Math.max(0, ctx.now - earliest));
  return true;
}

function minuteOf(at: number, h: Map<string, number> | undefined): MinuteRecord {
  return minuteOfFields(at, h ?? []);
}
