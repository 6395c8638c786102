import { UnrecoverableError } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

/** Attempts are bounded and spaced; terminal errors dead-letter at once (DESIGN invariant 5). */
describe('retries', () => {
  const h = engineHarness();

  it('retries until an attempt succeeds, counting attempts', async () => {
    const queue = h.queue('flaky');
    const attempts: number[] = [];
    const worker = h.worker('flaky', async (job) => {
      attempts.push(job.attempt);
      if (job.attempt < 3) throw new Error(`attempt ${job.attempt} failed`);
      return 'third time';
    });
    const next: string[] = [];
    worker.on('failed', (_job, _err, n) => next.push(n));
    const job = await queue.add('x', {}, { attempts: 5 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(attempts).toEqual([1, 2, 3]);
    expect(next).toEqual(['retry', 'retry']);
    expect(await queue.getJob(job.id)).toMatchObject({ attempt: 3, result: 'third time', error: { message: 'attempt 2 failed' } });
  });

  it('dead-letters after the last attempt with the last error', async () => {
    const queue = h.queue('hopeless');
    const worker = h.worker('hopeless', async (job) => {
      throw new Error(`nope ${job.attempt}`);
    });
    const next: string[] = [];
    worker.on('failed', (_job, _err, n) => next.push(n));
    const job = await queue.add('x', {}, { attempts: 2 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'failed');
    expect(next).toEqual(['retry', 'dead']);
    const dead = await queue.getJob(job.id);
    expect(dead).toMatchObject({ attempt: 2, error: { message: 'nope 2', reason: 'error', code: 'Error' } });
    expect(dead!.error!.stack).toMatch(/nope 2/);
  });

  it('spaces retries by a fixed backoff', async () => {
    const queue = h.queue('fixed');
    const starts: number[] = [];
    h.worker('fixed', async () => {
      starts.push(Date.now());
      if (starts.length < 3) throw new Error('again');
    });
    const job = await queue.add('x', {}, { attempts: 3, backoff: 120 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(115);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(115);
  });

  it('doubles an exponential backoff', async () => {
    const queue = h.queue('exp');
    const starts: number[] = [];
    h.worker('exp', async () => {
      starts.push(Date.now());
      if (starts.length < 3) throw new Error('again');
    });
    const job = await queue.add('x', {}, { attempts: 3, backoff: { type: 'exponential', delay: 80 } });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(75);
    expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(155);
  });

  it('uses the worker backoffStrategy for custom backoff', async () => {
    const queue = h.queue('custom');
    const starts: number[] = [];
    const seen: [number, string][] = [];
    h.worker(
      'custom',
      async () => {
        starts.push(Date.now());
        if (starts.length < 2) throw new Error('rate limited');
      },
      { backoffStrategy: (attempt, error) => (seen.push([attempt, error.message]), 150) },
    );
    const job = await queue.add('x', {}, { attempts: 2, backoff: { type: 'custom' } });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(seen).toEqual([[1, 'rate limited']]);
    expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(145);
  });

  it('dead-letters an UnrecoverableError at once, whatever attempts remain', async () => {
    const queue = h.queue('unrecoverable');
    let runs = 0;
    h.worker('unrecoverable', async () => {
      runs += 1;
      throw new UnrecoverableError('card declined');
    });
    const job = await queue.add('x', {}, { attempts: 10 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'failed');
    expect(runs).toBe(1);
    expect((await queue.getJob(job.id))?.error).toMatchObject({ reason: 'unrecoverable', message: 'card declined', code: 'UnrecoverableError' });
  });

  it('dead-letters instead of retrying past the deadline', async () => {
    const queue = h.queue('deadline');
    let runs = 0;
    h.worker('deadline', async () => {
      runs += 1;
      throw new Error('slow downstream');
    });
    const job = await queue.add('x', {}, { attempts: 10, backoff: 500, deadline: Date.now() + 200 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'failed');
    expect(runs).toBe(1);
    expect((await queue.getJob(job.id))?.error).toMatchObject({ reason: 'deadline', message: 'slow downstream' });
  });

  it('aborts a handler running past its deadline and dead-letters the job', async () => {
    const queue = h.queue('deadline-running');
    let reason: unknown;
    h.worker('deadline-running', (job) => new Promise((_, reject) => job.signal.addEventListener('abort', () => {
      reason = job.signal.reason;
      reject(job.signal.reason);
    })));
    const job = await queue.add('x', {}, { attempts: 3, deadline: Date.now() + 150 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'failed');
    expect((reason as Error).name).toBe('DeadlineExceededError');
    expect((await queue.getJob(job.id))?.error?.reason).toBe('deadline');
  });
});
