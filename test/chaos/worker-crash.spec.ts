import { readFileSync, existsSync } from 'node:fs';
import { waitFor } from '../helpers/wait-for.js';
import { scenario, type Scenario } from './support/scenario.js';

// Worker processes SIGKILLed: mid-job, by a poison job every time, and between
// a recorded side effect and the ack. Runs on the shared test Redis (its own
// key prefix): nothing here touches the server itself.
describe('chaos: worker processes killed with SIGKILL', () => {
  let s: Scenario;
  beforeEach(async () => {
    s = await scenario();
  });
  afterEach(async () => {
    await s.dispose();
  });

  it('re-delivers a job whose worker died mid-job once its lease expires; it completes once, stall counted', async () => {
    const first = await s.worker();
    await s.queue.add('work', { mode: 'ok', ms: 1500 }, { jobId: 'mid-job' });
    await waitFor(() => first.has('started', 'mid-job'), { timeout: 10_000, message: 'first worker started the job' });
    await first.kill();
    expect((await s.queue.getJob('mid-job'))?.state).toBe('active');

    const second = await s.worker();
    await waitFor(async () => (await s.queue.getJob('mid-job'))?.state === 'completed', { timeout: 15_000, interval: 50, message: 'job completed' });
    // NOTE: Redis acknowledges the completion before the worker's IPC message
    // reaches this process; on a loaded machine the message can lag the state.
    await waitFor(() => second.has('completed', 'mid-job'), { timeout: 5_000, message: 'second worker reported the completion' });
    const job = (await s.queue.getJob('mid-job'))!;
    expect(job.stalled).toBe(1);
    expect(second.of('started').filter((m) => m.id === 'mid-job')).toEqual([expect.objectContaining({ stalled: 1 })]);
    expect(second.of('completed').map((m) => m.id)).toEqual(['mid-job']);
    expect(first.has('completed')).toBe(false);
    expect(await s.end()).toEqual([]);
  });

  it('dead-letters a poison job that kills its process every time after maxStalledCount; other jobs are unaffected', async () => {
    const options = { worker: { maxStalledCount: 2, concurrency: 1 } };
    await s.queue.add('work', { mode: 'crash' }, { jobId: 'poison' });
    for (let i = 0; i < 6; i++) await s.queue.add('work', { mode: 'ok' }, { jobId: `fine-${i}` });
    // A supervisor: whenever the worker process dies, start another. A
    // process may die before it reports ready, so readiness is not awaited.
    let current = await s.worker(options, { ready: false });
    await waitFor(
      async () => {
        if (!current.alive) current = await s.worker(options, { ready: false });
        return (await s.queue.getJob('poison'))?.state === 'failed';
      },
      { timeout: 40_000, interval: 50, message: 'poison job dead-lettered' },
    );
    // Each process that died ran the poison job (concurrency 1, the others are harmless).
    const crashes = s.workers.filter((w) => !w.alive).length;
    const poison = (await s.queue.getJob('poison'))!;
    expect(poison.error?.reason).toBe('stalled');
    expect(poison.stalled).toBe(3);
    expect(crashes).toBe(3);
    await waitFor(async () => (await s.queue.getCounts()).completed === 6, { timeout: 15_000, interval: 50, message: 'the six other jobs completed' });
    for (const job of await s.queue.getJobs('completed')) expect(job.stalled).toBe(0);
    expect(await s.end()).toEqual([]);
  });

  it('skips a side effect recorded by job.once() when the job is delivered again after a kill before the ack', async () => {
    const first = await s.worker();
    await s.queue.add('work', { mode: 'effect', crashAfterEffect: true }, { jobId: 'order-1', idempotencyKey: 'charge:tenant-1:order-1' });
    await first.exited;
    const effects = () => (existsSync(`${s.dir}/effects.log`) ? readFileSync(`${s.dir}/effects.log`, 'utf8').trim().split('\n') : []);
    expect(effects()).toEqual([expect.stringMatching(/^order-1 /)]);

    await s.worker();
    await waitFor(async () => (await s.queue.getJob('order-1'))?.state === 'completed', { timeout: 15_000, interval: 50, message: 'job completed' });
    expect((await s.queue.getJob('order-1'))!.stalled).toBe(1);
    // The same business operation added again as a new job skips the effect too.
    await s.queue.add('work', { mode: 'effect' }, { jobId: 'order-1-again', idempotencyKey: 'charge:tenant-1:order-1' });
    // A different key runs it.
    await s.queue.add('work', { mode: 'effect' }, { jobId: 'order-2', idempotencyKey: 'charge:tenant-1:order-2' });
    await waitFor(async () => (await s.queue.getCounts()).completed === 3, { timeout: 15_000, interval: 50, message: 'all three completed' });
    expect(effects().map((line) => line.split(' ')[0])).toEqual(['order-1', 'order-2']);
    expect(await s.end()).toEqual([]);
  });
});
