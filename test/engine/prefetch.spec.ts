import { InvalidArgumentError, Worker } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

// A worker holds a reserve of claimed jobs beyond its concurrency (Worker
// option prefetch): never more running than the concurrency, the reserve
// leased but not started, handed back at once by close().
describe('prefetch: a reserve of jobs beyond the concurrency', () => {
  const h = engineHarness();

  it('holds concurrency + prefetch jobs, runs no more than the concurrency at once, and runs every job once', async () => {
    const queue = h.queue<number>('reserve');
    await queue.addBulk(Array.from({ length: 60 }, (_, i) => ({ name: 'n', data: i })));
    let running = 0;
    let most = 0;
    const ran: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The reserve is claimed by completions: the first two jobs end at once, the rest wait for the gate.
    const worker = h.worker<number>('reserve', async (job) => {
      running += 1;
      most = Math.max(most, running);
      if (job.data >= 2) await gate;
      ran.push(job.data);
      running -= 1;
    }, { concurrency: 2, prefetch: 5 });
    // Redis counts the claimed jobs active as the reply leaves; their handlers start on the next turns here.
    await waitFor(async () => (await queue.getCounts()).active === 7 && running === 2, { message: '2 running + 5 in reserve leased, after two completions' });
    expect(worker.activeCount).toBe(7);
    release();
    await waitFor(async () => (await queue.getCounts()).completed === 60, { timeout: 10_000, message: '60 completed' });
    expect(most).toBe(2);
    expect([...ran].sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i));
  });

  it('an idle worker claims no reserve: only completions top it up', async () => {
    const queue = h.queue<number>('idle');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = h.worker<number>('idle', async () => gate, { concurrency: 1, prefetch: 5 });
    await worker.run();
    await queue.addBulk(Array.from({ length: 10 }, (_, i) => ({ name: 'n', data: i })));
    await waitFor(() => worker.activeCount === 1, { message: 'the first job running' });
    // Nothing completed yet: no claim was made for the reserve.
    expect((await queue.getCounts()).active).toBe(1);
    release();
    await waitFor(async () => (await queue.getCounts()).completed === 10, { timeout: 10_000, message: 'all completed' });
  });

  it('close() hands the reserve back at once, unstarted, while the running job finishes', async () => {
    const queue = h.queue<number>('handback');
    await queue.addBulk(Array.from({ length: 10 }, (_, i) => ({ name: 'n', data: i })));
    const started: number[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = new Worker<number>('handback', async (job) => {
      started.push(job.data);
      if (job.data > 0) await gate;
    }, { store: h.store, concurrency: 1, prefetch: 4 });
    await waitFor(async () => (await queue.getCounts()).active === 5, { message: '1 running + 4 in reserve (claimed by the first completion)' });
    const closing = worker.close({ timeout: 20_000 });
    await waitFor(async () => (await queue.getCounts()).active === 1, { message: 'the reserve handed back' });
    expect((await queue.getCounts()).waiting).toBe(8);
    release();
    await closing;
    expect(started).toHaveLength(2);
    expect(await queue.getCounts()).toMatchObject({ active: 0, completed: 2, waiting: 8 });
    for (const job of await queue.getJobs('waiting')) await queue.cancel(job.id);
  });

  it("'auto' keeps no reserve for long handlers and refuses bad values", async () => {
    const queue = h.queue<number>('auto');
    await queue.addBulk(Array.from({ length: 12 }, (_, i) => ({ name: 'n', data: i })));
    let release!: () => void;
    let gate = new Promise<void>((r) => (release = r));
    let started = 0;
    h.worker<number>('auto', async () => {
      started += 1;
      const begun = performance.now();
      await gate;
      // Long jobs: held until the test lets them go, and never under 5 ms.
      while (performance.now() - begun < 5) await new Promise((r) => setImmediate(r));
    }, { concurrency: 2 });
    await waitFor(async () => started === 2 && (await queue.getCounts()).active === 2, { message: 'two running' });
    const first = release;
    gate = new Promise<void>((r) => (release = r));
    first();
    await waitFor(() => started === 4, { message: 'the next two running' });
    // The average says long jobs: no reserve was claimed beside them.
    expect((await queue.getCounts()).active).toBe(2);
    release();
    await waitFor(async () => (await queue.getCounts()).completed === 12, { timeout: 10_000, message: 'all completed' });
    expect(() => new Worker('auto', async () => undefined, { store: h.store, prefetch: -1 })).toThrow(InvalidArgumentError);
    expect(() => new Worker('auto', async () => undefined, { store: h.store, prefetch: 'more' as never })).toThrow('Worker options.prefetch');
  });
});
