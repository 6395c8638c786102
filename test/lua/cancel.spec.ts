import { Queue, type RedisStore } from '../../lib/index.js';
import type { OwnershipMessage } from '../../lib/store/index.js';
import { testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

describe('cancel', () => {
  let store: RedisStore;
  let queue: Queue;

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue('cancel', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('cancels a waiting job at once', async () => {
    const job = await queue.add('a', {});
    expect(await queue.cancel(job.id)).toBe('cancelled');
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'cancelled', finishedAt: expect.any(Number) });
    expect(await store.claim('cancel', { count: 1, workerId: 'w', lockMs: 1000 }).then((o) => o.jobs)).toEqual([]);
  });

  it('cancels a delayed job by its caller id (redisched-style)', async () => {
    await queue.add('remind', {}, { jobId: 'need_help_email:user-1', delay: 60_000 });
    expect(await queue.cancel('need_help_email:user-1')).toBe('cancelled');
    expect(await store.getCounts('cancel')).toMatchObject({ delayed: 0, cancelled: 1 });
    expect(await store.promote('cancel', 100)).toEqual({ moved: 0, nextDueIn: null });
  });

  it('asks the holder of an active job to stop, and finishes it as cancelled when it reports', async () => {
    const job = await queue.add('a', {});
    const heard: OwnershipMessage[] = [];
    const off = await store.notify.onOwnershipLost((m) => heard.push(m));
    const [claimed] = await store.claim('cancel', { count: 1, workerId: 'w', lockMs: 60_000 }).then((o) => o.jobs);
    expect(await queue.cancel(job.id)).toBe('cancelling');
    await waitFor(() => heard.length === 1, { message: 'the cancel message' });
    expect(heard[0]).toEqual({ kind: 'cancel', queue: 'cancel', id: job.id, token: claimed!.token });
    expect((await queue.getJob(job.id))?.cancelRequested).toBe(true);
    const fail = { retryDelay: 0, reason: 'error', message: 'aborted', stack: '', code: 'AbortError' };
    expect(await store.fail('cancel', { id: job.id, token: claimed!.token! }, fail)).toMatchObject({ state: 'cancelled' });
    await off();
  });

  it('reports finished and unknown jobs without touching them', async () => {
    const job = await queue.add('a', {});
    await queue.cancel(job.id);
    expect(await queue.cancel(job.id)).toBe('finished');
    expect(await queue.cancel('no-such-job')).toBe('not-found');
  });
});
