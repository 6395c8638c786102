import { InvalidArgumentError, RateLimitedError, type Job } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { WorkerProcess, childStoreOf } from '../helpers/worker-process.js';

/** Start times (Redis clock) of the completed jobs, sorted. */
async function startTimes(jobs: Job[]): Promise<number[]> {
  return jobs.map((j) => j.startedAt!).sort((a, b) => a - b);
}

describe('queue rate limit', () => {
  const h = engineHarness();

  it('holds two worker processes to max starts per duration, within 10% over 5 s', async () => {
    const queue = h.queue('limited');
    await queue.configure({ rateLimit: { max: 20, duration: 1000 } });
    await queue.addBulk(Array.from({ length: 160 }, (_, i) => ({ name: 'call', data: i })));
    const config = { ...childStoreOf(h.store), queue: 'limited', worker: { concurrency: 10 } };
    const procs = await Promise.all([WorkerProcess.start(config), WorkerProcess.start(config)]);
    try {
      await waitFor(async () => (await queue.getCounts()).completed >= 130, { timeout: 20_000, message: '130 jobs done' });
      const starts = await startTimes(await queue.getJobs('completed', { start: 0, end: -1 }));
      const t0 = starts[0]!;
      const inFiveSeconds = starts.filter((t) => t < t0 + 5000).length;
      // 5 windows of 20 starts.
      expect(inFiveSeconds).toBeGreaterThanOrEqual(90);
      expect(inFiveSeconds).toBeLessThanOrEqual(110);
      // No window of one duration starting at a window boundary holds more than max.
      for (let w = 0; w < 5; w += 1) {
        expect(starts.filter((t) => t >= t0 + w * 1000 && t < t0 + (w + 1) * 1000).length).toBeLessThanOrEqual(20);
      }
      // Both processes took part: the limit is shared through Redis, not per process.
      expect(procs[0]!.started().length).toBeGreaterThan(0);
      expect(procs[1]!.started().length).toBeGreaterThan(0);
    } finally {
      await Promise.all(procs.map((p) => p.close()));
    }
  });

  // A claim that took the window's last starts but fewer jobs than it asked
  // for must say when the window reopens; else the worker slept until its
  // next poll (10 s here) instead of one duration (issue 11).
  it.each([
    ['one worker', 1],
    ['two workers', 2],
  ])('starts max jobs per duration with %s whose concurrency is above max, not one window per poll', async (_what, workers) => {
    const queue = h.queue('over-max');
    await queue.configure({ rateLimit: { max: 5, duration: 500 } });
    await queue.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: 'call', data: i })));
    for (let w = 0; w < workers; w += 1) h.worker('over-max', async () => 'done', { concurrency: 12, pollInterval: 10_000 });
    await waitFor(async () => (await queue.getCounts()).completed >= 20, { timeout: 4000, message: 'four windows of 5 starts within 2 s' });
    const starts = await startTimes(await queue.getJobs('completed'));
    // Each window opens at its first start, one duration after the previous
    // one opened, and admits max starts: starts 5k..5k+4 belong to window k.
    for (let k = 1; k < 4; k += 1) {
      const gap = starts[5 * k]! - starts[5 * (k - 1)]!;
      expect(gap).toBeGreaterThanOrEqual(500);
      expect(gap).toBeLessThan(500 + 300);
    }
  });

  it('lets a handler throttle the queue: the job waits without spending an attempt and nothing starts meanwhile', async () => {
    const queue = h.queue('throttled');
    let throttledOnce = false;
    const rateLimited: number[] = [];
    const worker = h.worker(
      'throttled',
      async (job) => {
        if (job.data === 'first' && !throttledOnce) {
          throttledOnce = true;
          throw new RateLimitedError(600);
        }
        return job.data;
      },
      { concurrency: 1 },
    );
    worker.on('rateLimited', (_job, retryAfter) => rateLimited.push(retryAfter));
    const first = await queue.add('call', 'first', { attempts: 1 });
    await waitFor(() => rateLimited.length === 1, { message: 'the throttle' });
    const throttled = await queue.getJob(first.id);
    expect(throttled).toMatchObject({ state: 'delayed', attempt: 0 });
    await queue.addBulk([1, 2, 3].map((i) => ({ name: 'call', data: `later-${i}` })));
    await waitFor(async () => (await queue.getCounts()).completed === 4, { timeout: 10_000, message: 'all four jobs done' });
    const done = await queue.getJobs('completed');
    const again = done.find((j) => j.id === first.id)!;
    // It ran again on its one attempt (a RateLimitedError does not count), no earlier than retryAfter.
    expect(again.attempt).toBe(1);
    expect(again.startedAt! - throttled!.runAt!).toBeGreaterThanOrEqual(0);
    // Nothing of the queue started before the throttle expired.
    for (const job of done) expect(job.startedAt!).toBeGreaterThanOrEqual(throttled!.runAt! - 5);
  });

  it('refuses bad limits with the field named, and removes a limit with null', async () => {
    const queue = h.queue('bad-limits');
    await expect(queue.configure({ rateLimit: { max: 0, duration: 1000 } })).rejects.toThrow(InvalidArgumentError);
    await expect(queue.configure({ rateLimit: { max: 0, duration: 1000 } })).rejects.toThrow(/limits\.rateLimit\.max/);
    await expect(queue.configure({ maxWaiting: -1 })).rejects.toThrow(/limits\.maxWaiting/);
    await expect(queue.configure({ burst: 3 } as never)).rejects.toThrow(/limits\.burst/);
    await queue.configure({ rateLimit: { max: 5, duration: 100 }, maxWaiting: 10 });
    expect(await queue.getLimits()).toMatchObject({ rateLimit: { max: 5, duration: 100 }, maxWaiting: 10 });
    await queue.configure({ rateLimit: null });
    expect(await queue.getLimits()).toMatchObject({ rateLimit: null, maxWaiting: 10 });
  });
});
