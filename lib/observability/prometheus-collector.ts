import { Counter, Gauge, Histogram, register as globalRegistry, type Registry } from 'prom-client';
import { InvalidArgumentError } from '../engine/errors.js';
import { DURATION_BUCKET_BOUNDS_MS, type MinuteMetrics, type QueueMetrics } from '../engine/metrics.js';
import { assertKnownKeys, assertPlainObject } from '../engine/options.js';

/** What the collector reads: a Queue, or anything with a name and getMetrics(). */
export interface MetricsSource {
  readonly name: string;
  getMetrics(): Promise<QueueMetrics>;
}

/** Options of `new SpoolPrometheus(options)`: the queues to export, the registry and the metric name prefix. */
export interface SpoolPrometheusOptions {
  /** The queues to export, or a function returning them at each scrape (queues added later are then included). */
  readonly queues: readonly MetricsSource[] | (() => readonly MetricsSource[]);
  /** Where the metrics are registered. Default: prom-client's global registry. */
  readonly registry?: Registry;
  /** Start of every metric name. Default `spool_`. */
  readonly prefix?: string;
}

const OPTIONS = ['queues', 'registry', 'prefix'];
const STATES = ['waiting', 'paused', 'delayed', 'active', 'completed', 'failed', 'cancelled', 'waiting-children'] as const;
const COUNTERS = [
  ['completed', 'jobs_completed_total', 'Jobs completed'],
  ['failed', 'jobs_failed_total', 'Failed attempts (retried or dead-lettered)'],
  ['deadLettered', 'jobs_dead_lettered_total', 'Jobs moved to the failed state (dead letters)'],
  ['stalled', 'jobs_stalled_total', 'Leases that expired and were reaped'],
  ['retried', 'jobs_retried_total', 'Retries scheduled after a failed attempt'],
] as const;
type CountedField = (typeof COUNTERS)[number][0];
/** Bucket upper bounds in seconds (prom-client `le`), the open last bucket excluded. */
const BOUNDS_S = DURATION_BUCKET_BOUNDS_MS.filter(Number.isFinite).map((ms) => ms / 1000);

/**
 * Prometheus metrics of Spool queues (prom-client, an optional peer):
 * gauges `<prefix>jobs{queue,state}`, `<prefix>oldest_waiting_seconds`,
 * `<prefix>delayed_lag_seconds`; counters `<prefix>jobs_completed_total`,
 * `..._failed_total`, `..._dead_lettered_total`, `..._stalled_total`,
 * `..._retried_total`; histogram `<prefix>handler_duration_seconds`; all
 * labelled by queue. Every figure is read from Redis at scrape time
 * (queue.getMetrics(): a bounded number of commands), so it is the queue's,
 * whichever process serves it. Counters add what the per-minute counters
 * gained since the previous scrape (the first scrape starts with the last
 * hour): scrape more often than once an hour.
 *
 * @example
 * const collector = new SpoolPrometheus({ queues: [emails, orders] });
 * app.get('/metrics', async (_req, res) => res.type(register.contentType).send(await register.metrics()));
 */
export class SpoolPrometheus {
  readonly registry: Registry;
  private readonly sources: () => readonly MetricsSource[];
  private readonly totals = new Map<string, QueueTotals>();
  private readonly names: string[] = [];
  private scrape: Promise<QueueMetrics[]> | undefined;

  constructor(options: SpoolPrometheusOptions) {
    assertPlainObject(options, 'SpoolPrometheus options');
    assertKnownKeys(options, OPTIONS, 'SpoolPrometheus options');
    const { queues } = options;
    if (typeof queues !== 'function' && !Array.isArray(queues)) {
      throw new InvalidArgumentError('SpoolPrometheus options.queues', 'must be an array of queues or a function returning them', 'pass { queues: [queue] }');
    }
    const prefix = options.prefix ?? 'spool_';
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix)) {
      throw new InvalidArgumentError('SpoolPrometheus options.prefix', `"${prefix}" cannot start a metric name`, 'use letters, digits, _ and :');
    }
    this.sources = typeof queues === 'function' ? queues : () => queues;
    this.registry = options.registry ?? globalRegistry;
    const registers = [this.registry];
    const self = this;
    const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge, m: QueueMetrics) => void): void => {
      this.names.push(prefix + name);
      new Gauge({ name: prefix + name, help, labelNames, registers, async collect() {
        const all = await self.read();
        this.reset();
        for (const m of all) fill(this, m);
      } });
    };
    gauge('jobs', 'Jobs per state', ['queue', 'state'], (g, m) => STATES.forEach((state) => g.set({ queue: m.queue, state }, m.counts[state])));
    gauge('oldest_waiting_seconds', 'How long the longest-waiting ready job has waited', ['queue'], (g, m) => g.set({ queue: m.queue }, m.oldestWaitingMs / 1000));
    gauge('delayed_lag_seconds', 'How far past its run-at the earliest delayed job is', ['queue'], (g, m) => g.set({ queue: m.queue }, m.delayedLagMs / 1000));
    for (const [field, name, help] of COUNTERS) {
      this.names.push(prefix + name);
      new Counter({ name: prefix + name, help, labelNames: ['queue'], registers, async collect() {
        await self.read();
        this.reset();
        for (const [queue, t] of self.totals) this.inc({ queue }, t.counts[field]);
      } });
    }
    this.names.push(prefix + 'handler_duration_seconds');
    new DurationHistogram(prefix + 'handler_duration_seconds', registers, async () => {
      await self.read();
      return [...self.totals].map(([queue, t]) => ({ queue, buckets: t.buckets, sumMs: t.sumMs }));
    });
  }

  /** Takes the metrics out of the registry (the Nest module does it at shutdown). */
  close(): void {
    for (const name of this.names) this.registry.removeSingleMetric(name);
  }

  /** One read per scrape: every metric's collect() starts in the same turn and shares it. */
  private read(): Promise<QueueMetrics[]> {
    this.scrape ??= Promise.all(this.sources().map((q) => q.getMetrics()))
      .then((all) => {
        for (const m of all) {
          let t = this.totals.get(m.queue);
          if (!t) this.totals.set(m.queue, (t = new QueueTotals()));
          t.update(m.minutes);
        }
        return all;
      })
      .finally(() => {
        this.scrape = undefined;
      });
    return this.scrape;
  }
}

/** Running totals of one queue: what each minute bucket gained since it was last seen. */
class QueueTotals {
  readonly counts: Record<CountedField, number> = { completed: 0, failed: 0, deadLettered: 0, stalled: 0, retried: 0 };
  readonly buckets: number[] = DURATION_BUCKET_BOUNDS_MS.map(() => 0);
  sumMs = 0;
  private seen = new Map<number, MinuteMetrics>();

  update(minutes: readonly MinuteMetrics[]): void {
    const next = new Map<number, MinuteMetrics>();
    for (const minute of minutes) {
      const before = this.seen.get(minute.at);
      // NOTE: a minute that went down was rewritten from zero (its key was deleted): all it holds is new.
      const gained = (now: number, then: number | undefined): number => (then === undefined || now < then ? now : now - then);
      for (const [field] of COUNTERS) this.counts[field] += gained(minute[field], before?.[field]);
      minute.durationBuckets.forEach((n, k) => (this.buckets[k]! += gained(n, before?.durationBuckets[k])));
      this.sumMs += gained(minute.durationSumMs, before?.durationSumMs);
      next.set(minute.at, minute);
    }
    this.seen = next;
  }
}

interface HistogramExport {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  readonly values: { metricName: string; labels: Record<string, string | number>; sharedLabels: Record<string, never>; value: number }[];
}

interface HistogramData {
  readonly queue: string;
  readonly buckets: readonly number[];
  readonly sumMs: number;
}

/**
 * A prom-client Histogram whose buckets come from Redis (the scripts' duration
 * buckets) instead of observe(): it serves their cumulative counts as they are.
 */
class DurationHistogram extends Histogram<string> {
  private static readonly HELP = 'Handler run time of completed jobs';

  constructor(private readonly metricName: string, registers: Registry[], private readonly load: () => Promise<HistogramData[]>) {
    super({ name: metricName, help: DurationHistogram.HELP, labelNames: ['queue'], buckets: BOUNDS_S, registers });
  }

  /**
   * What the registry formats (prom-client calls it when it exists; its own
   * get() builds the JSON form from it): cumulative bucket counts as Redis holds them.
   */
  async getForPromString(): Promise<HistogramExport> {
    const name = this.metricName;
    const values: HistogramExport['values'] = [];
    const sharedLabels = {};
    for (const { queue, buckets, sumMs } of await this.load()) {
      let cumulative = 0;
      buckets.forEach((n, k) => {
        cumulative += n;
        values.push({ metricName: `${name}_bucket`, labels: { queue, le: k < BOUNDS_S.length ? BOUNDS_S[k]! : '+Inf' }, sharedLabels, value: cumulative });
      });
      values.push({ metricName: `${name}_sum`, labels: { queue }, sharedLabels, value: sumMs / 1000 });
      values.push({ metricName: `${name}_count`, labels: { queue }, sharedLabels, value: cumulative });
    }
    return { name, help: DurationHistogram.HELP, type: 'histogram', values, aggregator: 'sum' };
  }
}
