import type { JobCounts, MetricsRecord, MinuteCounts, MinuteRecord, Store } from '../store/store.js';

/**
 * Upper bounds of the handler-duration buckets, in ms: bucket k counts the
 * handlers that ran at most 2^k ms (1 ms .. about 17.5 minutes); the last
 * bucket (Infinity) counts the longer ones.
 */
export const DURATION_BUCKET_BOUNDS_MS: readonly number[] = [...Array.from({ length: 21 }, (_, k) => 2 ** k), Infinity];

/** Handler durations of completed jobs, estimated from the log-scale buckets (within a factor of 2, interpolated). */
export interface DurationStats {
  readonly count: number;
  readonly meanMs: number;
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
}

/**
 * Job names with counters of their own, per queue: the first names counted
 * take a slot each, a name not counted for an hour gives its slot to a
 * newcomer, and the rest are counted together (`otherNames`).
 */
export const METRIC_NAME_SLOTS = 20;

/** What happened in one minute to some of a queue's jobs (all of them, or one job name's). */
export interface CountedMetrics {
  readonly completed: number;
  /** Failed attempts: retried or dead-lettered. */
  readonly failed: number;
  /** Jobs that entered the failed state (attempts used up, unrecoverable, stalled too often, deadline, failed child, ...). */
  readonly deadLettered: number;
  /** Retries scheduled after a failed attempt. */
  readonly retried: number;
  /** Leases that expired and were reaped. */
  readonly stalled: number;
  /** null when no measured job completed in the minute. */
  readonly duration: DurationStats | null;
  /** Completed jobs per bucket of DURATION_BUCKET_BOUNDS_MS (for exporters). */
  readonly durationBuckets: readonly number[];
  /** Sum of the measured handler durations, ms. */
  readonly durationSumMs: number;
}

/** What happened in one minute, as the scripts counted it: the queue's totals, and per job name. */
export interface MinuteMetrics extends CountedMetrics {
  /** Start of the minute (Redis clock), ms since the epoch. */
  readonly at: number;
  /** The job names with a slot of their own (at most METRIC_NAME_SLOTS), each with its share of the totals. */
  readonly byName: ReadonlyMap<string, CountedMetrics>;
  /** The jobs of every other name. */
  readonly otherNames: CountedMetrics;
  /**
   * How long the longest-waiting ready job had waited when this minute was sampled, ms; null when no sample was
   * taken (running workers take one a minute, from their heartbeat: none while no worker runs).
   */
  readonly oldestWaitingMs: number | null;
  /** How far past its run-at the earliest delayed job was at the minute's sample, ms; null when no sample was taken. */
  readonly delayedLagMs: number | null;
}

/** The last hour's counters together: the gauges are per-minute samples and are not summed. */
export type HourMetrics = Omit<MinuteMetrics, 'at' | 'oldestWaitingMs' | 'delayedLagMs'>;

/** A queue's health: depth, age, lag, and the last hour minute by minute. */
export interface QueueMetrics {
  readonly queue: string;
  /** When it was read (Redis clock), ms. */
  readonly at: number;
  readonly counts: JobCounts;
  /** How long the longest-waiting ready job has waited, ms (0 when none waits). */
  readonly oldestWaitingMs: number;
  /** How far past its run-at the earliest delayed job is, ms: the promotion lag (0 when none is due). */
  readonly delayedLagMs: number;
  /** The last 60 minutes, oldest first; the last one is the current, partial minute. Each carries its gauge sample. */
  readonly minutes: readonly MinuteMetrics[];
  /** The 60 minutes together. */
  readonly lastHour: HourMetrics;
}

/** Reads a queue's metrics: a bounded number of Redis commands, whatever the number of jobs. */
export async function readMetrics(store: Store, queue: string): Promise<QueueMetrics> {
  return toQueueMetrics(queue, await store.getMetrics(queue));
}

export function toQueueMetrics(queue: string, record: MetricsRecord): QueueMetrics {
  const { now } = record;
  const minutes = record.minutes.map(toMinute);
  return {
    queue,
    at: now,
    counts: record.counts,
    oldestWaitingMs: record.oldestWaitingSince === null ? 0 : Math.max(0, now - record.oldestWaitingSince),
    delayedLagMs: record.earliestDelayedAt === null ? 0 : Math.max(0, now - record.earliestDelayedAt),
    minutes,
    lastHour: sumMinutes(record.minutes),
  };
}

function toMinute(m: MinuteRecord): MinuteMetrics {
  return {
    at: m.at,
    ...toCounted(m),
    byName: new Map([...m.byName].map(([name, counts]) => [name, toCounted(counts)])),
    otherNames: toCounted(m.otherNames),
    oldestWaitingMs: m.oldestWaitingMs,
    delayedLagMs: m.delayedLagMs,
  };
}

function toCounted(m: MinuteCounts): CountedMetrics {
  return {
    completed: m.completed,
    failed: m.failed,
    deadLettered: m.deadLettered,
    retried: m.retried,
    stalled: m.stalled,
    duration: durationStats(m.durations, m.durationSum),
    durationBuckets: m.durations,
    durationSumMs: m.durationSum,
  };
}

function sumMinutes(minutes: readonly MinuteRecord[]): HourMetrics {
  const names = new Map<string, MinuteCounts[]>();
  for (const m of minutes) for (const [name, counts] of m.byName) names.set(name, [...(names.get(name) ?? []), counts]);
  return {
    ...sumCounted(minutes),
    byName: new Map([...names].map(([name, counts]) => [name, sumCounted(counts)])),
    otherNames: sumCounted(minutes.map((m) => m.otherNames)),
  };
}

function sumCounted(minutes: readonly MinuteCounts[]): CountedMetrics {
  const buckets = DURATION_BUCKET_BOUNDS_MS.map((_, k) => minutes.reduce((sum, m) => sum + (m.durations[k] ?? 0), 0));
  const total = (pick: (m: MinuteCounts) => number): number => minutes.reduce((sum, m) => sum + pick(m), 0);
  const durationSumMs = total((m) => m.durationSum);
  return {
    completed: total((m) => m.completed),
    failed: total((m) => m.failed),
    deadLettered: total((m) => m.deadLettered),
    retried: total((m) => m.retried),
    stalled: total((m) => m.stalled),
    duration: durationStats(buckets, durationSumMs),
    durationBuckets: buckets,
    durationSumMs,
  };
}

/** Percentiles from bucket counts, interpolating linearly inside the bucket the rank falls in. */
export function durationStats(buckets: readonly number[], sumMs: number): DurationStats | null {
  const count = buckets.reduce((a, b) => a + b, 0);
  if (count === 0) return null;
  return { count, meanMs: round(sumMs / count), p50Ms: quantile(buckets, count, 0.5), p90Ms: quantile(buckets, count, 0.9), p99Ms: quantile(buckets, count, 0.99) };
}

function quantile(buckets: readonly number[], count: number, q: number): number {
  const rank = q * count;
  let below = 0;
  for (let k = 0; k < buckets.length; k++) {
    const n = buckets[k] ?? 0;
    if (n > 0 && below + n >= rank) {
      const lo = k === 0 ? 0 : 2 ** (k - 1);
      // The open last bucket is read as one more doubling.
      const hi = Number.isFinite(DURATION_BUCKET_BOUNDS_MS[k]) ? DURATION_BUCKET_BOUNDS_MS[k]! : 2 * lo;
      return round(lo + ((hi - lo) * (rank - below)) / n);
    }
    below += n;
  }
  return round(2 ** (buckets.length - 1));
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
