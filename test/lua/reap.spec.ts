import { Queue, type RedisStore } from '../../lib/index.js';
import type { OwnershipMessage } from '../../lib/store/index.js';
import { testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/** A job whose worker dies is delivered again once its lease expires (DESIGN invariant 3). */
describe('reap', () => {
  let store: RedisStore;
  let queue: Queue;
  const expire = () => new Promise((r) => setTimeout(r, 15));

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue('reap', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('leaves live leases alone', async () => {
    await queue.add('a', {});
    await store.claim('reap', { count: 1, workerId: 'w', lockMs: 60_000 }).then((o) => o.jobs);
    expect(await store.reap('reap', 1, 100)).toEqual([]);
    expect(await store.getCounts('reap')).toMatchObject({ active: 1 });
    const [id] = await store.listIds('reap', 'active', 0, 0);
    const record = await store.getJob('reap', id!);
    await store.release('reap', { id: id!, token: record!.token! });
  });

  it('re-delivers an expired lease at its old place with a stall counted, not an attempt', async () => {
    const first = await queue.add('first', {});
    await queue.add('second', {});
    await store.claim('reap', { count: 1, workerId: 'dead', lockMs: 1 }).then((o) => o.jobs);
    await expire();
    expect(await store.reap('reap', 1, 100)).toEqual([{ id: first.id, state: 'waiting' }]);
    const again = await queue.getJob(first.id);
    expect(again).toMatchObject({ state: 'waiting', stalled: 1, attempt: 0 });
    const [next] = await store.claim('reap', { count: 1, workerId: 'live', lockMs: 60_000 }).then((o) => o.jobs);
    expect(next?.id).toBe(first.id);
    expect(next?.attempt).toBe(1);
    await store.complete('reap', { id: next!.id, token: next!.token! }, 'null', { count: 0, workerId: 'live', lockMs: 1 });
    await store.claim('reap', { count: 1, workerId: 'live', lockMs: 60_000 }).then((o) => o.jobs).then(([r]) => store.release('reap', { id: r!.id, token: r!.token! }));
  });

  it('dead-letters a job that stalled more than maxStalledCount times, with reason stalled', async () => {
    const job = await queue.add('poison', {});
    for (let i = 0; i < 2; i++) {
      await store.claim('reap', { count: 1, workerId: `dead-${i}`, lockMs: 1 }).then((o) => o.jobs);
      await expire();
      const [outcome] = await store.reap('reap', 1, 100);
      expect(outcome).toEqual({ id: job.id, state: i === 0 ? 'waiting' : 'failed' });
    }
    const dead = await queue.getJob(job.id);
    expect(dead).toMatchObject({ state: 'failed', stalled: 2, error: { reason: 'stalled', code: 'StalledError' } });
    expect(dead!.error!.message).toMatch(/stalled more than maxStalledCount \(1\)/);
  });

  it('tells the old holder on the ownership-lost channel', async () => {
    const job = await queue.add('a', {});
    const heard: OwnershipMessage[] = [];
    const off = await store.notify.onOwnershipLost((m) => heard.push(m));
    const [claimed] = await store.claim('reap', { count: 1, workerId: 'gone', lockMs: 1 }).then((o) => o.jobs);
    await expire();
    await store.reap('reap', 1, 100);
    await waitFor(() => heard.length === 1, { message: 'the ownership-lost message' });
    expect(heard[0]).toEqual({ kind: 'lost', queue: 'reap', id: job.id, token: claimed!.token });
    await off();
    const [again] = await store.claim('reap', { count: 1, workerId: 'w', lockMs: 60_000 }).then((o) => o.jobs);
    await store.release('reap', { id: again!.id, token: again!.token! });
  });

  it('finishes an expired job with a pending cancel as cancelled', async () => {
    const job = await queue.add('a', {});
    await store.claim('reap', { count: 1, workerId: 'gone', lockMs: 1 }).then((o) => o.jobs);
    expect(await queue.cancel(job.id)).toBe('cancelling');
    await expire();
    expect(await store.reap('reap', 1, 100)).toEqual([{ id: job.id, state: 'cancelled' }]);
  });
});
