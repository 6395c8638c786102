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

  it('a plain waiting job stores name, data, createdAt, state and its wait score, and reads back whole', async () => {
    const job = await queue.add('plain', 7);
    const fields = (await redis.sendCommand(['HKEYS', k.job(job.id)])) as string[];
    // ws: the fifo list holds ids only (lua/includes/place), so the score a job put back returns with lives here.
    expect(fields.sort()).toEqual(['createdAt', 'data', 'name', 'state', 'ws']);
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

  it('marks the lease of a plain job, and completing it still honours a cancel, a watch and its retention', async () => {
    // includes/finish: '.' no finishing fields, '+' only rc, no mark when group, dedup or a flow parent is there.
    const plain = await queue.add('p', 1);
    const kept2 = await queue.add('p', 2, { removeOnComplete: 2 });
    const grouped = await queue.add('p', 3, { group: { id: 'g' } });
    const tokens = new Map<string, string>();
    for (let i = 0; i < 3; i++) {
      const claimed = await claimOne();
      tokens.set(claimed.id, claimed.token!);
    }
    expect(tokens.get(plain.id)).toMatch(/^w:\d+\.$/);
    expect(tokens.get(kept2.id)).toMatch(/^w:\d+\+$/);
    expect(tokens.get(grouped.id)).toMatch(/^w:\d+$/);
    // A cancel requested while the plain job runs wins over its completion.
    expect(await queue.cancel(plain.id)).toBe('cancelling');
    const cancelled = await store.complete('layout', { id: plain.id, token: tokens.get(plain.id)! }, '"r"', fetch);
    expect(cancelled.status).toBe('cancelled');
    // The rc job keeps its own retention; the grouped one frees its group slot.
    expect((await store.complete('layout', { id: kept2.id, token: tokens.get(kept2.id)! }, '"r"', fetch)).status).toBe('completed');
    expect((await store.complete('layout', { id: grouped.id, token: tokens.get(grouped.id)! }, '"r"', fetch)).status).toBe('completed');
    expect(await redis.sendCommand(['HGET', k.job(kept2.id), 'rc'])).toBe('2,-1');
    expect(await queue.getJob(kept2.id)).toMatchObject({ state: 'completed', result: 'r' });
    expect(await queue.getJob(plain.id)).toMatchObject({ state: 'cancelled' });
    // A watched plain job announces its end (field w, set while it runs).
    const watched = await queue.add('p', 4);
    const lease = await claimOne();
    const finished = queue.waitFor(watched.id, { timeout: 5_000 });
    await waitForField(k.job(watched.id), 'w');
    await store.complete('layout', { id: lease.id, token: lease.token! }, '"done"', fetch);
    expect(await finished).toBe('done');
  });

  async function waitForField(key: string, field: string): Promise<void> {
    const deadline = Date.now() + 5_000;
    while ((await redis.sendCommand(['HEXISTS', key, field])) !== 1) {
      if (Date.now() > deadline) throw new Error(`${key} never got field ${field}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
});
