import { Queue, type RedisStore } from '../../lib/index.js';
import { testStore } from '../helpers/store.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';

/** Claim order: strict priority, FIFO inside a priority, LIFO on request (DESIGN invariant 6). */
describe('claim', () => {
  let store: RedisStore;
  let queue: Queue<number>;
  const claimNames = async (count: number) =>
    (await store.claim('claim', { count, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs)).map((r) => r.name);

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue<number>('claim', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('serves lower priority numbers first and FIFO within a priority', async () => {
    await queue.add('p5-a', 1, { priority: 5 });
    await queue.add('p0-a', 2);
    await queue.add('p1-a', 3, { priority: 1 });
    await queue.add('p5-b', 4, { priority: 5 });
    await queue.add('p0-b', 5);
    await queue.add('p1-b', 6, { priority: 1 });
    expect(await claimNames(10)).toEqual(['p0-a', 'p0-b', 'p1-a', 'p1-b', 'p5-a', 'p5-b']);
  });

  it('puts LIFO jobs ahead of FIFO ones of their priority, newest first', async () => {
    await queue.add('fifo-1', 1, { priority: 2 });
    await queue.add('lifo-1', 2, { priority: 2, lifo: true });
    await queue.add('fifo-2', 3, { priority: 2 });
    await queue.add('lifo-2', 4, { priority: 2, lifo: true });
    await queue.add('first', 5, { priority: 1 });
    expect(await claimNames(10)).toEqual(['first', 'lifo-2', 'lifo-1', 'fifo-1', 'fifo-2']);
  });

  it('claims several jobs per call and gives each the running attempt and a lease', async () => {
    await queue.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: `j${i}`, data: i })));
    const claimed = await store.claim('claim', { count: 3, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs);
    expect(claimed.map((r) => r.name)).toEqual(['j0', 'j1', 'j2']);
    for (const r of claimed) expect(r).toMatchObject({ state: 'active', attempt: 1, token: expect.stringMatching(/^w:/) });
    expect(await store.getCounts('claim')).toMatchObject({ waiting: 2, active: 3 });
  });

  it('gives nothing while the queue is paused, and everything again after resume', async () => {
    await queue.add('a', 1);
    expect(await queue.pause()).toBe(true);
    expect(await queue.pause()).toBe(false);
    expect(await claimNames(1)).toEqual([]);
    expect(await queue.resume()).toBe(true);
    expect(await claimNames(1)).toEqual(['a']);
  });

  it('dead-letters a job whose deadline passed while it waited, and claims the next one', async () => {
    const late = await queue.add('late', 1, { deadline: Date.now() + 20 });
    await queue.add('fine', 2);
    await new Promise((r) => setTimeout(r, 40));
    expect(await claimNames(1)).toEqual(['fine']);
    const dead = await queue.getJob(late.id);
    expect(dead).toMatchObject({ state: 'failed', error: { reason: 'deadline', code: 'DeadlineExceededError' } });
  });

  it('drops an index entry whose job hash is gone (verify would flag it otherwise)', async () => {
    const job = await queue.add('a', 1);
    await commandOf(store, 'test').sendCommand(['DEL', keysOf(store, 'claim').job(job.id)]);
    expect(await queue.verify()).toEqual([`job ${job.id} is in waiting but has no hash`, 'meta n:a says 1 waiting, the indexes hold 0']);
    expect(await claimNames(1)).toEqual([]);
    // The index entry is gone. The per-name counter cannot be corrected by the
    // claim (the name went with the hash), and verify() still reports it.
    expect(await queue.verify()).toEqual(['meta n:a says 1 waiting, the indexes hold 0']);
    await commandOf(store, 'test').sendCommand(['HDEL', keysOf(store, 'claim').meta, 'n:a']);
  });
});
