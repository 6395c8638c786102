import { Queue, type RedisStore } from '../../lib/index.js';
import type { QueueKeys } from '../../lib/store/keys.js';
import type { RedisClientLike } from '../../lib/store/redis-client.js';
import { decodeHash } from '../../lib/store/replies.js';
import type { RawReply } from '../../lib/store/reply-values.js';
import { testStore } from '../helpers/store.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';

/**
 * The compact job hash add.lua writes (its header) and the full one written
 * before it (and still by flow-add and scheduler refills): both must read,
 * run and finish the same, retention included (lua/includes/retention).
 */
describe('job hash layout', () => {
  let store: RedisStore;
  let queue: Queue<number>;
  let redis: RedisClientLike;
  let k: QueueKeys;
  const fetch = { count: 0, workerId: 'w', lockMs: 1 };
  const claimOne = async () => (await store.claim('layout', { count: 1, workerId: 'w', lockMs: 10_000 })).jobs[0]!;

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue<number>('layout', { store });
    redis = commandOf(store);
    k = keysOf(store, 'layout');
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  /** A job hash as the layout before the compact one wrote it: id, opts, runAt and ws always, no rc/rf when keep-all. */
  async function addOldLayout(id: string, data: number): Promise<void> {
    const now = Date.now();
    const seq = Number(await redis.sendCommand(['HINCRBY', k.meta, 'seq', '1']));
    const ws = String(4294967296 + seq);
    await redis.sendCommand(['HSET', k.job(id), 'id', id, 'name', 'old', 'data', String(data), 'opts', '{"attempts":2}', 'maxAttempts', '2',
      'createdAt', String(now), 'state', 'waiting', 'ws', ws, 'runAt', String(now)]);
    await redis.sendCommand(['ZADD', k.wait, ws, id]);
    await redis.sendCommand(['HINCRBY', k.meta, 'n:old', '1']);
  }

  /** The completed index filled to the default count (1,000) with recent entries of no job, as if 1,000 jobs had finished. */
  async function fillCompleted(): Promise<string[]> {
    const now = Date.now();
    const fakes = Array.from({ length: 1000 }, (_, i) => `fake-${String(i).padStart(4, '0')}`);
    await redis.sendCommand(['ZADD', k.completed, ...fakes.flatMap((id) => [String(now - 1000), id])]);
    return fakes;
  }

  async function clearFakes(fakes: string[]): Promise<void> {
    await redis.sendCommand(['ZREM', k.completed, ...fakes]);
  }

  it('a plain waiting job stores name, data, createdAt and state, and reads back whole', async () => {
    const job = await queue.add('plain', 7);
    const fields = (await redis.sendCommand(['HKEYS', k.job(job.id)])) as string[];
    expect(fields.sort()).toEqual(['createdAt', 'data', 'name', 'state']);
    expect(await redis.sendCommand(['OBJECT', 'ENCODING', k.job(job.id)])).toBe('listpack');
    expect(await queue.getJob(job.id)).toMatchObject({ id: job.id, name: 'plain', data: 7, state: 'waiting', runAt: job.createdAt, maxAttempts: 1, opts: { attempts: 1 } });
  });

  it('stores the options that differ from the defaults, keep-all retention included', async () => {
    const job = await queue.add('opts', 1, { attempts: 3, backoff: 10, removeOnComplete: false });
    const hash = decodeHash((await redis.sendCommand(['HGETALL', k.job(job.id)])) as RawReply);
    expect(hash).toMatchObject({ maxAttempts: '3', rc: '-1,-1', opts: '{"backoff":{"type":"fixed","delay":10}}' });
    expect(hash.rf).toBeUndefined();
    expect((await queue.getJob(job.id))!.opts).toEqual({ attempts: 3, backoff: { type: 'fixed', delay: 10 } });
  });

  it('a claimed compact job carries its id, and goes back to its place when released', async () => {
    const [first, second] = await queue.addBulk([{ name: 'a', data: 1 }, { name: 'a', data: 2 }]);
    const claimed = await claimOne();
    expect(claimed.id).toBe(first!.id);
    expect(await store.progress('layout', { id: claimed.id, token: claimed.token! }, '50')).toBe(true);
    const events = (await redis.sendCommand(['XRANGE', k.events, '-', '+'])) as [string, string[]][];
    const progress = events.map(([, f]) => f).find((f) => f[1] === 'progress');
    expect(progress).toEqual(['event', 'progress', 'jobId', first!.id, 'progress', '50']);
    await store.release('layout', { id: claimed.id, token: claimed.token! });
    expect((await claimOne()).id).toBe(first!.id);
    expect((await claimOne()).id).toBe(second!.id);
  });

  it('a compact job without rc gets the default retention: the newest 1,000 completed are kept', async () => {
    const fakes = await fillCompleted();
    const job = await queue.add('plain', 1);
    const claimed = await claimOne();
    await store.complete('layout', { id: claimed.id, token: claimed.token! }, 'null', fetch);
    expect(await store.getCounts('layout')).toMatchObject({ completed: 1000 });
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed' });
    await clearFakes(fakes);
  });

  it('a compact job with removeOnComplete: false keeps every completed job', async () => {
    const fakes = await fillCompleted();
    await queue.add('keep', 1, { removeOnComplete: false });
    const claimed = await claimOne();
    await store.complete('layout', { id: claimed.id, token: claimed.token! }, 'null', fetch);
    expect(await store.getCounts('layout')).toMatchObject({ completed: 1001 });
    await clearFakes(fakes);
  });

  it('a job stored by the full layout reads, runs and keeps everything when it has no rc', async () => {
    await addOldLayout('old-1', 5);
    expect(await queue.getJob('old-1')).toMatchObject({ id: 'old-1', name: 'old', data: 5, state: 'waiting', maxAttempts: 2, opts: { attempts: 2 } });
    const fakes = await fillCompleted();
    const claimed = await claimOne();
    expect(claimed).toMatchObject({ id: 'old-1', attempt: 1, maxAttempts: 2 });
    await store.complete('layout', { id: claimed.id, token: claimed.token! }, '"ok"', fetch);
    expect(await store.getCounts('layout')).toMatchObject({ completed: 1001 });
    expect(await queue.getJob('old-1')).toMatchObject({ state: 'completed', result: 'ok' });
    await clearFakes(fakes);
  });
});
