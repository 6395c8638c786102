import { BatchResultError, InvalidArgumentError, UnknownOptionError, Worker, type ActiveJob, type Batch } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

type Jobs = ActiveJob<number, number>[];

/** Batch handlers: the handler takes up to `size` jobs at once; each job keeps its own lease, attempts and outcome. */
describe('batch handlers', () => {
  const h = engineHarness();
  const batched = (queue: string, handler: (jobs: Jobs, batch: Batch<number, number>) => Promise<readonly number[] | void>, options: { size: number; maxWaitMs?: number; concurrency?: number; lockDuration?: number; lockRenewTime?: number }) => {
    const { size, maxWaitMs, ...rest } = options;
    // The harness closes it after the test; its per-job Handler type does not name batch handlers.
    return h.worker<number, number>(queue, handler as never, { batch: { size, ...(maxWaitMs !== undefined && { maxWaitMs }) }, ...rest });
  };

  it('gives the handler up to `size` jobs per call and stores one result per job, with a completed event each', async () => {
    const queue = h.queue<number, number>('sizes');
    const sizes: number[] = [];
    const worker = batched('sizes', async (jobs) => {
      sizes.push(jobs.length);
      return jobs.map((j) => j.data * 2);
    }, { size: 10 });
    const completed: string[] = [];
    worker.on('completed', (job, result) => completed.push(`${job.data}:${result}`));
    const jobs = await queue.addBulk(Array.from({ length: 25 }, (_, i) => ({ name: 'double', data: i })));
    await waitFor(() => completed.length === 25, { message: '25 completed events' });
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(25);
    // Batches, not one call per job: 25 jobs in at most a handful of calls.
    expect(sizes.length).toBeLessThan(10);
    for (const [i, job] of jobs.entries()) expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed', result: i * 2, attempt: 1 });
    expect((await queue.getCounts()).completed).toBe(25);
  });

  it('runs a short batch once the first job has waited maxWaitMs', async () => {
    const queue = h.queue<number, number>('short');
    const calls: number[][] = [];
    batched('short', async (jobs) => {
      calls.push(jobs.map((j) => j.data));
      return jobs.map(() => 0);
    }, { size: 100, maxWaitMs: 30 });
    await queue.addBulk([1, 2, 3].map((data) => ({ name: 'x', data })));
    await waitFor(async () => (await queue.getCounts()).completed === 3, { message: 'the three jobs done' });
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('batch.fail(job, err) fails that job alone: it retries per its own options, the others complete', async () => {
    const queue = h.queue<number, number>('partial');
    const attempts: string[] = [];
    const worker = batched('partial', async (jobs, batch) => {
      for (const job of jobs) {
        attempts.push(`${job.data}@${job.attempt}`);
        if (job.data === 2 && job.attempt === 1) batch.fail(job, new Error('two is flaky'));
        if (job.data === 3) batch.fail(job, new Error('three is broken'));
      }
      return jobs.map((j) => j.data * 10);
    }, { size: 5, maxWaitMs: 20 });
    const failed: string[] = [];
    worker.on('failed', (job, error, next) => failed.push(`${job.data}:${error.message}:${next}`));
    const [one, two, three] = await queue.addBulk([
      { name: 'n', data: 1 },
      { name: 'n', data: 2, opts: { attempts: 2 } },
      { name: 'n', data: 3, opts: { attempts: 1 } },
    ]);
    await waitFor(async () => (await queue.getJob(two!.id))?.state === 'completed', { message: 'two completed on its retry' });
    expect(await queue.getJob(one!.id)).toMatchObject({ state: 'completed', result: 10, attempt: 1 });
    expect(await queue.getJob(two!.id)).toMatchObject({ state: 'completed', result: 20, attempt: 2 });
    expect(await queue.getJob(three!.id)).toMatchObject({ state: 'failed', attempt: 1, error: { message: 'three is broken', reason: 'error' } });
    expect(failed.sort()).toEqual(['2:two is flaky:retry', '3:three is broken:dead']);
    expect(attempts).toContain('2@2');
    // Metrics count per job, not per batch call: 2 completions, 2 failed attempts (one retried, one dead-lettered).
    const { lastHour } = await queue.getMetrics();
    expect(lastHour).toMatchObject({ completed: 2, failed: 2, retried: 1, deadLettered: 1 });
  });

  it('a throw fails every job of the batch; a wrong number of results too (BatchResultError)', async () => {
    const queue = h.queue<number, number>('throws');
    batched('throws', async (jobs) => {
      if (jobs.some((j) => j.name === 'boom')) throw new Error('the sink is down');
      return [1];
    }, { size: 3, maxWaitMs: 20 });
    const booms = await queue.addBulk([1, 2].map((data) => ({ name: 'boom', data, opts: { attempts: 1 } })));
    for (const job of booms) await waitFor(async () => (await queue.getJob(job.id))?.state === 'failed', { message: 'boom failed' });
    for (const job of booms) expect((await queue.getJob(job.id))!.error!.message).toBe('the sink is down');
    const shorts = await queue.addBulk([1, 2].map((data) => ({ name: 'short', data, opts: { attempts: 1 } })));
    for (const job of shorts) await waitFor(async () => (await queue.getJob(job.id))?.state === 'failed', { message: 'short failed' });
    const error = (await queue.getJob(shorts[0]!.id))!.error!;
    expect(error.code).toBe('BatchResultError');
    expect(error.message).toMatch(/returned 1 results for a batch of 2 jobs/);
    expect(new BatchResultError('x')).toBeInstanceOf(Error);
  });

  it('renews every lease of a batch while it runs: no job stalls under short leases', async () => {
    const queue = h.queue<number, number>('leases');
    // A paused watcher claims nothing but reaps expired leases every 100 ms.
    const watcher = h.worker('leases', async () => 'never claimed', { lockDuration: 400, lockRenewTime: 100, stalledInterval: 100 });
    await watcher.pause();
    const stalls: string[] = [];
    watcher.on('stalled', (id) => stalls.push(id));
    batched('leases', async (jobs) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return jobs.map((j) => j.data);
    }, { size: 4, maxWaitMs: 20, lockDuration: 400, lockRenewTime: 100 });
    const jobs = await queue.addBulk([1, 2, 3, 4].map((data) => ({ name: 'slow', data })));
    await waitFor(async () => (await queue.getCounts()).completed === 4, { message: 'the batch done' });
    for (const job of jobs) expect(await queue.getJob(job.id)).toMatchObject({ attempt: 1, stalled: 0 });
    expect(stalls).toEqual([]);
  });

  it('runs concurrency / size batches at once', async () => {
    const queue = h.queue<number, number>('parallel');
    let inFlight = 0;
    let most = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    batched('parallel', async (jobs) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await gate;
      inFlight -= 1;
      return jobs.map(() => 0);
    }, { size: 5, maxWaitMs: 20, concurrency: 10 });
    await queue.addBulk(Array.from({ length: 10 }, (_, i) => ({ name: 'p', data: i })));
    await waitFor(() => most === 2, { message: 'two batches in flight' });
    open();
    await waitFor(async () => (await queue.getCounts()).completed === 10, { message: 'all done' });
    expect(most).toBe(2);
  });

  it('refuses bad batch options with errors that name the field', () => {
    const store = h.store;
    const handler = async (jobs: ActiveJob[]) => jobs.map(() => null);
    expect(() => new Worker('bad', handler, { store, batch: { size: 10, maxWait: 5 } as never })).toThrow(UnknownOptionError);
    expect(() => new Worker('bad', handler, { store, batch: { size: 10, maxWait: 5 } as never })).toThrow(/maxWaitMs/);
    expect(() => new Worker('bad', handler, { store, batch: {} as never })).toThrow(/batch.size is required/);
    expect(() => new Worker('bad', handler, { store, batch: { size: 0 } })).toThrow(InvalidArgumentError);
    expect(() => new Worker('bad', handler, { store, batch: { size: 10 }, concurrency: 5 })).toThrow(/below batch.size/);
    expect(() => new Worker('bad', '/tmp/handler.mjs' as never, { store, batch: { size: 10 } })).toThrow(/needs a batch handler function/);
  });
});
