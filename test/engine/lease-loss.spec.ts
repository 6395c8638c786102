import { LeaseLostError, type ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { redisOnly } from '../helpers/store-kind.js';

/** Strong lease ownership at the worker: a holder that lost its lease hears it and writes nothing. */
describe('lease loss', () => {
  const h = engineHarness({ stalledInterval: 50 });

  it('re-delivers the job of a dead worker after its lease expires, counting a stall', async () => {
    const queue = h.queue('dead-holder');
    const job = await queue.add('x', {});
    // A "worker" that claims and dies: nobody renews this lease.
    await h.store.claim('dead-holder', { count: 1, workerId: 'dead', lockMs: 100 });
    const worker = h.worker('dead-holder', async (j) => `rerun after ${j.stalled} stall`);
    const [stalledId, state] = await nextEvent<[string, string]>(worker, 'stalled', 3000);
    expect([stalledId, state]).toEqual([job.id, 'waiting']);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(await queue.getJob(job.id)).toMatchObject({ stalled: 1, attempt: 1, result: 'rerun after 1 stall' });
  });

  redisOnly('forces the reap by rewriting the lease score in the Redis active set')("aborts the old holder's signal when its job is reaped, and rejects its late result", async () => {
    const queue = h.queue('reaped');
    const reasons: unknown[] = [];
    let runs = 0;
    const worker = h.worker('reaped', (job) => {
      runs += 1;
      if (runs > 1) return 'second run';
      return new Promise((resolve) =>
        job.signal.addEventListener('abort', () => {
          reasons.push(job.signal.reason);
          resolve('late first run');
        }),
      );
    });
    const errors: Error[] = [];
    worker.on('error', (err) => errors.push(err));
    const started = nextEvent<[ActiveJob]>(worker, 'active');
    const job = await queue.add('x', {});
    await started;
    // Time passes for the lease only: expire it in Redis, then reap as another worker would.
    await commandOf(h.store, 't').sendCommand(['ZADD', keysOf(h.store, 'reaped').active, '0', job.id]);
    await h.store.reap('reaped', 1, 100);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(LeaseLostError);
    expect(await queue.getJob(job.id)).toMatchObject({ result: 'second run', stalled: 1 });
    expect(errors.some((e) => e instanceof LeaseLostError)).toBe(true);
  });
});
