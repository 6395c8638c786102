import { Worker, WorkerClosingError, type ActiveJob, type RedisStore } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';

/** Shutdown claims nothing new, lets jobs finish within a deadline, then hands the rest back (DESIGN invariant 8). */
describe('graceful shutdown', () => {
  const h = engineHarness();

  it('lets a running job finish before close() resolves', async () => {
    const queue = h.queue('finish');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = h.worker('finish', async () => {
      await gate;
      return 'finished';
    });
    const started = nextEvent<[ActiveJob]>(worker, 'active');
    const job = await queue.add('x', {});
    await started;
    const closed = worker.close({ timeout: 5000 });
    setTimeout(release, 50);
    await closed;
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed', result: 'finished' });
  });

  it('past the timeout aborts the job and hands it back without counting the attempt; another worker finishes it', async () => {
    const queue = h.queue('handback');
    let reason: unknown;
    const first = h.worker('handback', (job) => new Promise(() => job.signal.addEventListener('abort', () => (reason = job.signal.reason))));
    const started = nextEvent<[ActiveJob]>(first, 'active');
    const job = await queue.add('x', {}, { attempts: 1 });
    await started;
    await first.close({ timeout: 100 });
    expect(reason).toBeInstanceOf(WorkerClosingError);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'waiting', attempt: 0 });
    h.worker('handback', async () => 'second worker');
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(await queue.getJob(job.id)).toMatchObject({ attempt: 1, result: 'second worker' });
  });

  it('claims nothing once closing started', async () => {
    const queue = h.queue('no-claims');
    const worker = h.worker('no-claims', async () => undefined);
    await worker.run();
    await worker.close();
    await queue.add('late', {});
    expect(worker.isRunning).toBe(false);
    expect(await queue.getCounts()).toMatchObject({ waiting: 1, active: 0 });
    await queue.cancel((await queue.getJobs('waiting'))[0]!.id);
  });

  it('leaves no job active after closing with many in flight', async () => {
    const queue = h.queue('many');
    const worker = h.worker('many', (job) => new Promise((resolve) => {
      if (job.data === 0) resolve('quick');
      else job.signal.addEventListener('abort', () => resolve('aborted'));
    }), { concurrency: 20 });
    await queue.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'x', data: i % 2 })));
    // 15 quick jobs complete; the 15 others hold their slots until aborted.
    await waitFor(async () => worker.activeCount === 15 && (await queue.getCounts()).completed === 15, { message: '15 done, 15 running' });
    await worker.close({ timeout: 100 });
    expect(await queue.getCounts()).toMatchObject({ active: 0, completed: 15, waiting: 15 });
    for (const job of await queue.getJobs('waiting')) await queue.cancel(job.id);
  });
});

/**
 * A busy queue: completions claim the slot's next job in the same call. When
 * such a reply lands after close() began, the claimed job is handed straight
 * back; close() must resolve once that hand-back is done, not at its timeout.
 */
describe('graceful shutdown on a busy queue', () => {
  const h = engineHarness();

  it('resolves promptly when complete-and-claim-next replies arrive while closing', async () => {
    const queue = h.queue('busy');
    await queue.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: 'x', data: i })));
    // Holds each complete reply (real Redis already answered) until the test lets it through.
    let letRepliesThrough!: () => void;
    const repliesHeld = new Promise<void>((r) => (letRepliesThrough = r));
    let completionsSent = 0;
    const real = h.store;
    const store = new Proxy(real, {
      get(target, prop) {
        if (prop === 'completeMany') {
          return async (...args: Parameters<RedisStore['completeMany']>) => {
            completionsSent += args[1].length;
            const reply = await target.completeMany(...args);
            await repliesHeld;
            return reply;
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    // Built here, not by the harness: it runs on the gated store. The test closes it itself.
    // Without a reserve (prefetch 0) a pool this small writes each completion at once (possibly several of one turn together).
    const worker = new Worker('busy', async () => 'done', { concurrency: 4, store, prefetch: 0 });
    await waitFor(() => completionsSent === 4, { message: 'four completions sent, their replies held' });
    const started = Date.now();
    const closed = worker.close({ timeout: 20_000 });
    letRepliesThrough();
    await closed;
    // The in-flight writes and hand-backs take milliseconds; the bug waited the whole 20 s timeout.
    expect(Date.now() - started).toBeLessThan(5000);
    const counts = await queue.getCounts();
    expect(counts).toMatchObject({ active: 0, completed: 4, waiting: 36 });
    for (const job of await queue.getJobs('waiting', { end: -1 })) await queue.cancel(job.id);
  });
});
