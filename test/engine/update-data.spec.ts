import { InvalidArgumentError, LeaseLostError, PayloadTooLargeError, type ActiveJob } from '../../lib/index.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { engineHarness } from '../helpers/harness.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';
import { redisOnly } from '../helpers/store-kind.js';

/** job.updateData(): only the lease holder replaces the payload, and only with what a worker would run. */
describe('job.updateData', () => {
  const h = engineHarness({ stalledInterval: 50 });

  redisOnly('forces the reap by rewriting the lease score in the Redis active set')('refuses a holder whose lease was reaped: LeaseLostError, the new holder keeps its data', async () => {
    const queue = h.queue<{ step: number }>('reaped-data');
    const refused: unknown[] = [];
    let runs = 0;
    const worker = h.worker<{ step: number }>('reaped-data', async (job) => {
      runs += 1;
      if (runs > 1) return job.data.step;
      await new Promise((resolve) => job.signal.addEventListener('abort', resolve));
      // Its lease is gone: the late write must not reach the job the next holder runs.
      await job.updateData({ step: 99 }).catch((err: unknown) => refused.push(err));
      return -1;
    });
    const started = nextEvent<[ActiveJob]>(worker, 'active');
    const job = await queue.add('x', { step: 0 });
    await started;
    await commandOf(h.store, 't').sendCommand(['ZADD', keysOf(h.store, 'reaped-data').active, '0', job.id]);
    await h.store.reap('reaped-data', 1, 100);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed' && refused.length === 1, { message: 'the second run done, the late write refused' });
    expect(refused[0]).toBeInstanceOf(LeaseLostError);
    expect(await queue.getJob(job.id)).toMatchObject({ data: { step: 0 }, result: 0 });
  });

  it('refuses what the worker would not run or JSON cannot keep, naming the field; nothing is written', async () => {
    const queue = h.queue<unknown>('bad-data');
    const errors: unknown[] = [];
    h.worker<unknown>('bad-data', async (job) => {
      await job.updateData('x'.repeat(2000)).catch((err: unknown) => errors.push(err));
      await job.updateData({ when: new Date(0), n: 10n }).catch((err: unknown) => errors.push(err));
      return job.data;
    }, { maxPayloadBytes: 1024 });
    const job = await queue.add('x', { keep: true });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { message: 'the job done' });
    expect(errors[0]).toBeInstanceOf(PayloadTooLargeError);
    expect(String(errors[0])).toMatch(/job\.updateData data is 2002 bytes encoded, over the limit of 1024/);
    expect(errors[1]).toBeInstanceOf(InvalidArgumentError);
    expect(String(errors[1])).toMatch(/job\.updateData data/);
    expect(await queue.getJob(job.id)).toMatchObject({ data: { keep: true }, result: { keep: true } });
  });
});
