import { Counter, Gauge, Histogram, register as globalRegistry, type Registry } from 'prom-client';
import { InvalidArgumentError } from '../engine/errors.js';
import { DURATION_BUCKET_BOUNDS_MS, type CountedMetrics, type MinuteMetrics, type QueueMetrics } from '../engine/metrics.js';
import { assertKnownKeys, assertPlainObject } from '../engine/options.js';
import { describe } from '../common/validation.js';

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
  /**
   * Label the counters and the duration histogram by job name too (`name`):
   * at most METRIC_NAME_SLOTS (20) names per queue, the jobs of the other
   * names under `name="other"`. Default true; false: by queue only.
   */
  readonly nameLabel?: boolean;
}

const OPTIONS = ['queues', 'registry', 'prefix', 'nameLabel'];
/** The `name` label of the jobs whose names have no counters of their own (lua/includes/metrics). */
const OTHER_NAMES = 'other';
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
 * labelled by queue, the counters and the histogram by job name too (at
 * most 20 names a queue, then `other`). Every figure is read from Redis at scrape time
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
  private readonly byName: boolean;
  private scrape: Promise<QueueMetrics[]> | undefined;

  constructor(options: SpoolPrometheusOptions) {
    assertPlainObject(options, 'SpoolPrometheus options');
    assertKnownKeys(options, OPTIONS, 'SpoolPrometheus options');
    const { queues } = options;
    if (typeof queues !== 'function' && !Array.isArray(queues)) {
      throw new InvalidArgumentError('SpoolPrometheus options.queues', 'must be an array of queues or a function returning them', 'pass { queues: [queue] }');
    }
    const prefix = options.prefix ?? 'spool_';
    if (typeof prefix !== 'string' || !/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(prefix)) {
      throw new InvalidArgumentError('SpoolPrometheus options.prefix', `${describe(prefix)} cannot start a metric name`, 'use letters, digits, _ and :');
    }
    if (options.nameLabel !== undefined && typeof options.nameLabel !== 'boolean') {
      throw new InvalidArgumentError('SpoolPrometheus options.nameLabel', `must be true or false, got ${describe(options.nameLabel)}`);
    }
    const byName = options.nameLabel ?? true;
    this.byName = byName;
    const labelsOf = (queue: string, name: string): Record<string, string> => (byName ? { queue, name } : { queue });
    const seriesLabels = byName ? ['queue', 'name'] : ['queue'];
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
      new Counter({ name: prefix + name, help, labelNames: seriesLabels, registers, async collect() {
        await self.read();
        this.reset();
        for (const [queue, t] of self.totals) for (const [label, s] of t.series) this.inc(labelsOf(queue, label), s.counts[field]);
      } });
    }
    this.names.push(prefix + 'handler_duration_seconds');
    new DurationHistogram(prefix + 'handler_duration_seconds', registers, seriesLabels, async () => {
      await self.read();
      return [...self.totals].flatMap(([queue, t]) => [...t.series].map(([label, s]) => ({ labels: labelsOf(queue, label), buckets: s.buckets, sumMs: s.sumMs })));
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
          if (!t) this.totals.set(m.queue, (t = new QueueTotals(this.byName)));
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

/** The running totals of one series: what each minute bucket gained since it was last seen. */
class SeriesTotals {
  readonly counts: Record<CountedField, number> = { completed: 0, failed: 0, deadLettered: 0, stalled: 0, retried: 0 };
  readonly buckets: number[] = DURATION_BUCKET_BOUNDS_MS.map(() => 0);
  sumMs = 0;

  add(now: CountedMetrics, then: CountedMetrics | undefined): void {
    // NOTE: a minute that went down was rewritten from zero (its key was deleted): all it holds is new.
    const gained = (n: number, before: number | undefined): number => (before === undefined || n < before ? n : n - before);
    for (const [field] of COUNTERS) this.counts[field] += gained(now[field], then?.[field]);
    now.durationBuckets.forEach((n, k) => (this.buckets[k]! += gained(n, then?.durationBuckets[k])));
    this.sumMs += gained(now.durationSumMs, then?.durationSumMs);
  }
}

/**
 * A queue's series: one (label '') without the name label, else one per job
 * name with counters of its own and one for the other names ('other'; a job
 * actually named "other" shares it). A name no minute of the last hour
 * counts any more has its series dropped, so their number stays bounded
 * however names come and go.
 */
class QueueTotals {
  readonly series = new Map<string, SeriesTotals>();
  private seen = new Map<number, ReadonlyMap<string, CountedMetrics>>();

  constructor(private readonly byName: boolean) {}

  update(minutes: readonly MinuteMetrics[]): void {
    const next = new Map<number, ReadonlyMap<string, CountedMetrics>>();
    const live = new Set<string>();
    for (const minute of minutes) {
      const parts = this.byName ? splitByName(minute) : new Map([['', minute]]);
      const before = this.seen.get(minute.at);
      for (const [label, counted] of parts) {
        live.add(label);
        let s = this.series.get(label);
        if (!s) this.series.set(label, (s = new SeriesTotals()));
        s.add(counted, before?.get(label));
      }
      next.set(minute.at, parts);
    }
    this.seen = next;
    for (const label of this.series.keys()) if (!live.has(label)) this.series.delete(label);
  }
}

/** A minute's counts per `name` label: the names with counters of their own, and the others (when they counted anything). */
function splitByName(minute: MinuteMetrics): Map<string, CountedMetrics> {
  const parts = new Map<string, CountedMetrics>(minute.byName);
  const other = minute.otherNames;
  if (other.completed + other.failed + other.deadLettered + other.retried + other.stalled > 0) {
    const named = parts.get(OTHER_NAMES);
    parts.set(OTHER_NAMES, named ? addCounted(named, other) : other);
  }
  return parts;
}

function addCounted(a: CountedMetrics, b: CountedMetrics): CountedMetrics {
  return {
    completed: a.completed + b.completed,
    failed: a.failed + b.failed,
    deadLettered: a.deadLettered + b.deadLettered,
    retried: a.retried + b.retried,
    stalled: a.stalled + b.stalled,
    duration: null,
    durationBuckets: a.durationBuckets.map((n, k) => n + (b.durationBuckets[k] ?? 0)),
    durationSumMs: a.durationSumMs + b.durationSumMs,
  };
}

interface HistogramExport {
  readonly name: string;
  readonly help: string;
  readonly type: 'histogram';
  readonly aggregator: 'sum';
  readonly values: { metricName: string; labels: Record<string, string | number>; sharedLabels: Record<string, never>; value: number }[];
}

interface HistogramData {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: readonly number[];
  readonly sumMs: number;
}

/**
 * A prom-client Histogram whose buckets come from Redis (the scripts' duration
 * buckets) instead of observe(): it serves their cumulative counts as they are.
 */
class DurationHistogram extends Histogram<string> {
  private static readonly HELP = 'Handler run time of completed jobs';

  constructor(private readonly metricName: string, registers: Registry[], labelNames: string[], private readonly load: () => Promise<HistogramData[]>) {
    super({ name: metricName, help: DurationHistogram.HELP, labelNames, buckets: BOUNDS_S, registers });
  }

  /**
   * What the registry formats (prom-client calls it when it exists; its own
   * get() builds the JSON form from it): cumulative bucket counts as Redis holds them.
   */
  async getForPromString(): Promise<HistogramExport> {
    const name = this.metricName;
    const values: HistogramExport['values'] = [];
    const sharedLabels = {};
    for (const { labels, buckets, sumMs } of await this.load()) {
      let cumulative = 0;
      buckets.forEach((n, k) => {
        cumulative += n;
        values.push({ metricName: `${name}_bucket`, labels: { ...labels, le: k < BOUNDS_S.length ? BOUNDS_S[k]! : '+Inf' }, sharedLabels, value: cumulative });
      });
      values.push({ metricName: `${name}_sum`, labels: { ...labels }, sharedLabels, value: sumMs / 1000 });
      values.push({ metricName: `${name}_count`, labels: { ...labels }, sharedLabels, value: cumulative });
    }
    return { name, help: DurationHistogram.HELP, type: 'histogram', values, aggregator: 'sum' };
  }
}
