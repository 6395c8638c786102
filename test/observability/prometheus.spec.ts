import 'reflect-metadata';
import { Registry } from 'prom-client';
import { InvalidArgumentError, UnrecoverableError } from '../../lib/index.js';
import { SpoolPrometheus, SpoolPrometheusModule } from '../../lib/observability/prometheus.js';
import { engineHarness } from '../helpers/harness.js';
import { parsePromText, sampleValue, type PromFamily } from '../helpers/prom-text.js';
import { waitFor } from '../helpers/wait-for.js';

const h = engineHarness({ pollInterval: 50 });

describe('SpoolPrometheus (prom-client collector)', () => {
  async function scrape(registry: Registry): Promise<Map<string, PromFamily>> {
    return parsePromText(await registry.metrics());
  }

  /** The samples of one metric whose labels include `labels`. */
  function samples(m: Map<string, PromFamily>, family: string, name: string, labels: Record<string, string>) {
    return m.get(family)?.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) ?? [];
  }

  it('exposes depth, age, counters and the duration histogram per queue, in the text format', async () => {
    const registry = new Registry();
    const queue = h.queue('prom-a');
    const other = h.queue('prom-b');
    new SpoolPrometheus({ queues: [queue, other], registry });
    await queue.addBulk([1, 2, 3].map((i) => ({ name: 'ok', data: i })));
    await queue.add('bad', 0, { attempts: 2, backoff: { type: 'fixed', delay: 0 } });
    await other.add('waits', 0, { delay: 60_000 });
    h.worker<number>('prom-a', async (job) => {
      if (job.name === 'bad') throw new UnrecoverableError('no');
      return job.data;
    });
    await waitFor(async () => {
      const c = await queue.getCounts();
      return c.completed === 3 && c.failed === 1;
    }, { timeout: 10_000, message: 'three completed, one dead' });

    const m = await scrape(registry);
    expect(m.get('spool_jobs')?.type).toBe('gauge');
    expect(sampleValue(m, 'spool_jobs', 'spool_jobs', { queue: 'prom-a', state: 'completed' })).toBe(3);
    expect(sampleValue(m, 'spool_jobs', 'spool_jobs', { queue: 'prom-a', state: 'failed' })).toBe(1);
    expect(sampleValue(m, 'spool_jobs', 'spool_jobs', { queue: 'prom-b', state: 'delayed' })).toBe(1);
    expect(sampleValue(m, 'spool_oldest_waiting_seconds', 'spool_oldest_waiting_seconds', { queue: 'prom-a' })).toBe(0);
    expect(m.get('spool_jobs_completed_total')?.type).toBe('counter');
    // Counters and the histogram are labelled by job name too.
    expect(sampleValue(m, 'spool_jobs_completed_total', 'spool_jobs_completed_total', { queue: 'prom-a', name: 'ok' })).toBe(3);
    expect(sampleValue(m, 'spool_jobs_completed_total', 'spool_jobs_completed_total', { queue: 'prom-a', name: 'bad' })).toBe(0);
    expect(sampleValue(m, 'spool_jobs_failed_total', 'spool_jobs_failed_total', { queue: 'prom-a', name: 'bad' })).toBe(1);
    expect(sampleValue(m, 'spool_jobs_failed_total', 'spool_jobs_failed_total', { queue: 'prom-a', name: 'ok' })).toBe(0);
    expect(sampleValue(m, 'spool_jobs_dead_lettered_total', 'spool_jobs_dead_lettered_total', { queue: 'prom-a', name: 'bad' })).toBe(1);
    expect(sampleValue(m, 'spool_jobs_retried_total', 'spool_jobs_retried_total', { queue: 'prom-a', name: 'bad' })).toBe(0);
    // A queue that ran nothing has no name series yet.
    expect(samples(m, 'spool_jobs_stalled_total', 'spool_jobs_stalled_total', { queue: 'prom-b' })).toEqual([]);

    const hist = m.get('spool_handler_duration_seconds')!;
    expect(hist.type).toBe('histogram');
    const buckets = hist.samples.filter((s) => s.name === 'spool_handler_duration_seconds_bucket' && s.labels.queue === 'prom-a' && s.labels.name === 'ok');
    expect(buckets).toHaveLength(22);
    expect(buckets[0]!.labels.le).toBe('0.001');
    expect(buckets[21]!.labels.le).toBe('+Inf');
    // Cumulative: never decreasing, ending at the count.
    buckets.forEach((b, i) => i > 0 && expect(b.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value));
    expect(buckets[21]!.value).toBe(3);
    expect(sampleValue(m, 'spool_handler_duration_seconds', 'spool_handler_duration_seconds_count', { queue: 'prom-a', name: 'ok' })).toBe(3);
    expect(sampleValue(m, 'spool_handler_duration_seconds', 'spool_handler_duration_seconds_count', { queue: 'prom-a', name: 'bad' })).toBe(0);
    expect(sampleValue(m, 'spool_handler_duration_seconds', 'spool_handler_duration_seconds_sum', { queue: 'prom-a', name: 'ok' })).toBeGreaterThanOrEqual(0);
  });

  it('labels at most 20 job names a queue; the jobs of the others count under name="other"; nameLabel: false labels by queue only', async () => {
    const registry = new Registry();
    const byQueue = new Registry();
    const queue = h.queue('prom-names');
    new SpoolPrometheus({ queues: [queue], registry });
    new SpoolPrometheus({ queues: [queue], registry: byQueue, nameLabel: false });
    const names = Array.from({ length: 23 }, (_, i) => `type-${String(i).padStart(2, '0')}`);
    h.worker('prom-names', async () => 'ok', { concurrency: 1 });
    // One name after the other, so the first 20 take the slots.
    for (const [i, name] of names.entries()) {
      await queue.add(name, {});
      await waitFor(async () => (await queue.getCounts()).completed === i + 1, { message: `${name} to complete` });
    }
    const m = await scrape(registry);
    const completed = samples(m, 'spool_jobs_completed_total', 'spool_jobs_completed_total', { queue: 'prom-names' });
    expect(completed.map((s) => s.labels.name).sort()).toEqual([...names.slice(0, 20), 'other'].sort());
    expect(completed.find((s) => s.labels.name === 'type-00')?.value).toBe(1);
    expect(completed.find((s) => s.labels.name === 'other')?.value).toBe(3);
    expect(sampleValue(m, 'spool_handler_duration_seconds', 'spool_handler_duration_seconds_count', { queue: 'prom-names', name: 'other' })).toBe(3);
    expect(new Set(samples(m, 'spool_handler_duration_seconds', 'spool_handler_duration_seconds_count', { queue: 'prom-names' }).map((s) => s.labels.name)).size).toBe(21);

    const q = await scrape(byQueue);
    expect(samples(q, 'spool_jobs_completed_total', 'spool_jobs_completed_total', { queue: 'prom-names' })).toEqual([
      expect.objectContaining({ labels: { queue: 'prom-names' }, value: 23 }),
    ]);
    expect(() => new SpoolPrometheus({ queues: [], registry: new Registry(), nameLabel: 'no' as never })).toThrow(/options\.nameLabel must be true or false/);
  });

  it('counts only what happened since the previous scrape, so scrapes never count a job twice', async () => {
    const registry = new Registry();
    const queue = h.queue('prom-delta');
    new SpoolPrometheus({ queues: () => [queue], registry, prefix: 'app_' });
    await queue.addBulk([1, 2].map((i) => ({ name: 'ok', data: i })));
    h.worker('prom-delta', async () => 'ok');
    await waitFor(async () => (await queue.getCounts()).completed === 2, { message: 'two completed' });
    const completed = async () => sampleValue(await scrape(registry), 'app_jobs_completed_total', 'app_jobs_completed_total', { queue: 'prom-delta', name: 'ok' });
    expect(await completed()).toBe(2);
    expect(await completed()).toBe(2);
    await queue.addBulk([3, 4, 5].map((i) => ({ name: 'ok', data: i })));
    await waitFor(async () => (await queue.getCounts()).completed === 5, { message: 'five completed' });
    expect(await completed()).toBe(5);
  });

  it('leaves the registry when closed, and refuses bad options by name', () => {
    const registry = new Registry();
    const collector = new SpoolPrometheus({ queues: [], registry });
    expect(registry.getSingleMetric('spool_jobs')).toBeDefined();
    collector.close();
    expect(registry.getMetricsAsArray()).toHaveLength(0);
    expect(() => new SpoolPrometheus({ queues: 'emails' } as never)).toThrow(InvalidArgumentError);
    expect(() => new SpoolPrometheus({ queues: [], registry, prefix: '9x' })).toThrow(/options\.prefix/);
    expect(() => new SpoolPrometheus({ queues: [], registry, labels: {} } as never)).toThrow(/labels/);
    expect(() => SpoolPrometheusModule.forRoot({ registery: registry } as never)).toThrow(/registery/);
  });
});
