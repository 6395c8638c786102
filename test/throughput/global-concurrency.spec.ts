import { InvalidArgumentError, type Job } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { WorkerProcess, childStoreOf } from '../helpers/worker-process.js';

/**
 * The most jobs whose leases overlapped, from the Redis clock's startedAt
 * (claim) and finishedAt (complete) of each: half-open intervals, so a
 * job claimed in the millisecond another completed does not count twice.
 */
function peakOverlap(jobs: readonly Job[]): number {
  const edges = jobs.flatMap((j) => [[j.startedAt!, 1], [j.finishedAt!, -1]] as const);
  // At one instant the ends come first: a completion frees its slot before the claim that takes it.
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let peak = 0;
  for (const [, delta] of edges) peak = Math.max(peak, (running += delta));
  return peak;
}

/** Busy slot time over wall time: the average number of jobs running at once. */
function meanOverlap(jobs: readonly Job[]): number {
  const busy = jobs.reduce((ms, j) => ms + (j.finishedAt! - j.startedAt!), 0);
  const span = Math.max(...jobs.map((j) => j.finishedAt!)) - Math.min(...jobs.map((j) => j.startedAt!));
  return busy / span;
}

describe('global concurrency: at most n jobs of a queue active across every worker and process', () => {
  const h = engineHarness();

  it('holds three worker processes (9 slots, prefetch on) to 4 active jobs, and refills the 4 slots by wake-ups alone', async () => {
    const queue = h.queue('capped');
    await queue.setGlobalConcurrency(4);
    expect(await queue.getGlobalConcurrency()).toBe(4);
    // A 60 s poll: only wake-ups move work, so a slot the cap frees and no wake-up announces would stall the run past its bound.
    const config = { ...childStoreOf(h.store), queue: 'capped', worker: { concurrency: 3, prefetch: 2, pollInterval: 60_000 }, holdMs: 80 };
    const procs = await Promise.all([WorkerProcess.start(config), WorkerProcess.start(config), WorkerProcess.start(config)]);
    let sampledPeak = 0;
    let sampling = true;
    // Sampled from Redis while the jobs run: the active index never holds more than the cap.
    const sampler = (async () => {
      while (sampling) {
        sampledPeak = Math.max(sampledPeak, (await queue.getCounts()).active);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      // Added while the workers wait: the adds push to idle workers (includes/push-jobs), one at a time and in bulk.
      for (let i = 0; i < 20; i += 1) await queue.add('call', i);
      await queue.addBulk(Array.from({ length: 60 }, (_, i) => ({ name: 'call', data: 20 + i })));
      // 80 jobs of 80 ms over 4 slots take about 1.6 s; a slot left empty until a poll would take 60 s.
      await waitFor(async () => (await queue.getCounts()).completed === 80, { timeout: 20_000, message: '80 jobs done' });
    } finally {
      sampling = false;
      await sampler;
      await Promise.all(procs.map((p) => p.close()));
    }
    const done = await queue.getJobs('completed', { start: 0, end: -1 });
    expect(done).toHaveLength(80);
    process.stdout.write(`global concurrency 4, 3 processes x 3 slots: peak ${peakOverlap(done)} leased at once (sampled ${sampledPeak}), mean ${meanOverlap(done).toFixed(2)}\n`);
    expect(sampledPeak).toBeLessThanOrEqual(4);
    // All 4 slots were used at once, never more (the mean is reported: it depends on the machine's load, 3.75-3.85 on an idle one).
    expect(peakOverlap(done)).toBe(4);
    // Every process took part: the cap is shared through Redis, not per process.
    for (const proc of procs) expect(proc.started().length).toBeGreaterThan(0);
  });

  it('lets waiting jobs start as soon as the cap is raised or removed, and refuses a cap that is not a positive integer', async () => {
    const queue = h.queue<number>('raised');
    await queue.setGlobalConcurrency(1);
    let running = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.worker<number>('raised', async () => {
      running += 1;
      most = Math.max(most, running);
      await gate;
      running -= 1;
    }, { concurrency: 5, pollInterval: 60_000 });
    await queue.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: 'n', data: i })));
    await waitFor(() => running === 1, { message: 'one job running under the cap of 1' });
    expect((await queue.getCounts()).active).toBe(1);
    // The idle worker hears of the new room (configure wakes it) long before its 60 s poll.
    await queue.setGlobalConcurrency(3);
    await waitFor(() => running === 3, { message: 'three running under the raised cap' });
    await queue.removeGlobalConcurrency();
    expect(await queue.getGlobalConcurrency()).toBeNull();
    await waitFor(() => running === 5, { message: 'all five running without a cap' });
    expect(most).toBe(5);
    release();
    await waitFor(async () => (await queue.getCounts()).completed === 5, { message: 'all done' });
    await expect(queue.setGlobalConcurrency(0)).rejects.toThrow(InvalidArgumentError);
    await expect(queue.setGlobalConcurrency(1.5)).rejects.toThrow(/concurrency/);
  });

  it('wakes a worker the cap turned away when a job of another worker ends', async () => {
    const queue = h.queue<number>('handoff');
    await queue.configure({ concurrency: 1 });
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = new Promise<void>((r) => (releaseFirst = r));
    const a = h.worker<number>('handoff', async (job) => {
      order.push(`a:${job.data}`);
      await first;
    }, { concurrency: 1, pollInterval: 60_000, prefetch: 0 });
    await queue.add('n', 0);
    await waitFor(() => order.length === 1, { message: 'worker a runs job 0' });
    h.worker<number>('handoff', async (job) => void order.push(`b:${job.data}`), { concurrency: 1, pollInterval: 60_000, prefetch: 0 });
    await queue.add('n', 1);
    // Worker b is idle, turned away by the cap (its 60 s poll is far off).
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(order).toEqual(['a:0']);
    // Worker a takes nothing more: the slot job 0 frees must reach b by a wake-up.
    const closing = a.close({ timeout: 5000 });
    releaseFirst();
    await closing;
    await waitFor(() => order.includes('b:1'), { timeout: 5000, message: 'job 1 ran on worker b after job 0 ended' });
  });
});
