import { ActiveJob, InvalidArgumentError, type JobState } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';

describe('Worker', () => {
  const h = engineHarness();

  it('runs a job, stores its result, and emits active then completed after the write', async () => {
    const queue = h.queue<{ n: number }, number>('basic');
    const events: string[] = [];
    const worker = h.worker<{ n: number }, number>('basic', async (job) => job.data.n * 2);
    worker.on('active', (job) => events.push(`active:${job.id}`));
    const completed = new Promise<JobState | undefined>((resolve) =>
      worker.on('completed', (job, result) => {
        events.push(`completed:${job.id}:${result}`);
        void queue.getJob(job.id).then((stored) => resolve(stored?.state));
      }),
    );
    const job = await queue.add('double', { n: 21 });
    expect(await completed).toBe('completed');
    expect(events).toEqual([`active:${job.id}`, `completed:${job.id}:42`]);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed', result: 42, attempt: 1 });
  });

  it('never runs more jobs at once than its concurrency, and uses all of it', async () => {
    const queue = h.queue<number>('concurrency');
    let running = 0;
    let peak = 0;
    let done = 0;
    h.worker<number>(
      'concurrency',
      async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise((r) => setTimeout(r, 5 + Math.random() * 10));
        running -= 1;
        done += 1;
      },
      { concurrency: 4 },
    );
    await queue.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: 'n', data: i })));
    await waitFor(() => done === 40, { message: '40 jobs done' });
    expect(peak).toBe(4);
  });

  it('records progress and log lines of the job it holds', async () => {
    const queue = h.queue('progress');
    const worker = h.worker('progress', async (job) => {
      await job.updateProgress({ pct: 50 });
      await job.log('halfway');
      await job.log('done');
    });
    const progressed = nextEvent<[ActiveJob, unknown]>(worker, 'progress');
    const job = await queue.add('p', null);
    const [, value] = await progressed;
    expect(value).toEqual({ pct: 50 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect((await queue.getJob(job.id))?.progress).toEqual({ pct: 50 });
    expect(await queue.getLogs(job.id)).toEqual(['halfway', 'done']);
  });

  it('refuses progress that JSON cannot carry, naming it', async () => {
    const queue = h.queue('bad-progress');
    let caught: unknown;
    h.worker('bad-progress', async (job) => {
      try {
        await job.updateProgress(10n);
      } catch (err) {
        caught = err;
      }
    });
    const job = await queue.add('p', null);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(caught).toBeInstanceOf(InvalidArgumentError);
    expect((caught as InvalidArgumentError).field).toBe('progress');
  });

  it('dead-letters results JSON cannot carry, and stores undefined as null', async () => {
    const queue = h.queue<string>('results');
    const worker = h.worker<string, unknown>('results', async (job) => {
      if (job.data === 'bigint') return 1n;
      if (job.data === 'cycle') {
        const a: Record<string, unknown> = {};
        a.self = a;
        return a;
      }
      return undefined;
    });
    const failures: Error[] = [];
    worker.on('failed', (_job, err) => failures.push(err));
    const [big, cycle, nothing] = await queue.addBulk([
      { name: 'r', data: 'bigint', opts: { attempts: 3 } },
      { name: 'r', data: 'cycle' },
      { name: 'r', data: 'undefined' },
    ]);
    await waitFor(async () => (await queue.getCounts()).failed === 2 && (await queue.getCounts()).completed === 1);
    expect(await queue.getJob(big!.id)).toMatchObject({ state: 'failed', attempt: 1, error: { reason: 'result', code: 'ResultSerializationError' } });
    expect((await queue.getJob(cycle!.id))?.error?.message).toMatch(/cannot be stored as JSON/);
    expect(await queue.getJob(nothing!.id)).toMatchObject({ state: 'completed', result: null });
    expect(failures).toHaveLength(2);
  });

  it('turns non-Error throws into readable failures', async () => {
    const queue = h.queue('throws');
    h.worker('throws', async (job) => {
      throw job.name === 'str' ? 'plain string' : { code: 42 };
    });
    const [a, b] = await queue.addBulk([{ name: 'str', data: 1 }, { name: 'obj', data: 2 }]);
    await waitFor(async () => (await queue.getCounts()).failed === 2);
    expect((await queue.getJob(a!.id))?.error).toMatchObject({ message: 'handler threw a non-Error value: plain string', code: 'NonErrorThrown' });
    expect((await queue.getJob(b!.id))?.error?.message).toBe('handler threw a non-Error value: {"code":42}');
  });

  it('emits drained when the queue ran dry', async () => {
    const queue = h.queue('drain');
    const worker = h.worker('drain', async () => undefined, { concurrency: 2 });
    const drained = nextEvent(worker, 'drained');
    await queue.addBulk([{ name: 'a', data: 1 }, { name: 'b', data: 2 }, { name: 'c', data: 3 }]);
    await drained;
    expect(await queue.getCounts()).toMatchObject({ completed: 3, waiting: 0, active: 0 });
  });

  it('keeps running when an event listener throws', async () => {
    const queue = h.queue('listener');
    const worker = h.worker('listener', async () => 'ok');
    worker.on('completed', () => {
      throw new Error('listener bug');
    });
    await queue.addBulk([{ name: 'a', data: 1 }, { name: 'b', data: 2 }]);
    await waitFor(async () => (await queue.getCounts()).completed === 2);
  });
});
