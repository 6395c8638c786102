import { Queue, RedisStore } from '../../lib/index.js';
import { redisUrl, silentLogger, testStore, uniquePrefix } from '../helpers/store.js';
import { commandOf } from '../helpers/redis-access.js';
import { RedisServer } from '../helpers/redis-server.mjs';

/** A private server: a test counts the script calls it executes (INFO commandstats), which other test files would blur. */
describe('add', () => {
  let server: RedisServer;
  let store: RedisStore;
  let queue: Queue<{ n: number }>;

  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => {
    await server.dispose();
  });
  beforeEach(async () => {
    store = await testStore(server.url);
    queue = new Queue<{ n: number }>('add', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('stores the envelope and reports where the job went', async () => {
    const job = await queue.add('send', { n: 1 }, { attempts: 4, priority: 3 });
    expect(job).toMatchObject({ name: 'send', data: { n: 1 }, state: 'waiting', attempt: 0, maxAttempts: 4, priority: 3 });
    const stored = await queue.getJob(job.id);
    expect(stored).toMatchObject({ id: job.id, name: 'send', data: { n: 1 }, state: 'waiting', maxAttempts: 4, opts: { attempts: 4, priority: 3 } });
    expect(stored!.createdAt).toBe(job.createdAt);
  });

  it('adding a caller id twice gives one job and returns the existing one', async () => {
    const first = await queue.add('remind', { n: 1 }, { jobId: 'need-help:user-7', delay: 60_000 });
    const second = await queue.add('remind', { n: 2 }, { jobId: 'need-help:user-7' });
    expect(second.id).toBe('need-help:user-7');
    expect(second.data).toEqual({ n: 1 });
    expect(second.state).toBe('delayed');
    expect(second.createdAt).toBe(first.createdAt);
    expect(await store.getCounts('add')).toMatchObject({ delayed: 1, waiting: 0 });
  });

  it('concurrent adds with one dedup key, from two connections, make one job', async () => {
    const other = new RedisStore({ url: server.url }, { prefix: store.prefix, logger: silentLogger });
    await other.connect();
    const otherQueue = new Queue<{ n: number }>('add', { store: other });
    const jobs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? otherQueue : queue).add('charge', { n: i }, { dedup: { key: 'order-42' } })),
    );
    expect(new Set(jobs.map((j) => j.id)).size).toBe(1);
    expect(await store.getCounts('add')).toMatchObject({ waiting: 1 });
    await other.disconnect();
  });

  it('holds a dedup key without ttl until its job finishes, then accepts a new job', async () => {
    const first = await queue.add('charge', { n: 1 }, { dedup: { key: 'k' } });
    expect((await queue.add('charge', { n: 2 }, { dedup: { key: 'k' } })).id).toBe(first.id);
    const [claimed] = await store.claim('add', { count: 1, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs);
    await store.complete('add', { id: claimed!.id, token: claimed!.token! }, 'null', { count: 0, workerId: 'w', lockMs: 1 });
    const next = await queue.add('charge', { n: 3 }, { dedup: { key: 'k' } });
    expect(next.id).not.toBe(first.id);
    expect(next.state).toBe('waiting');
  });

  it('keeps a dedup window with ttl even after the job finished, and opens it after the ttl', async () => {
    const first = await queue.add('ping', { n: 1 }, { dedup: { key: 'w', ttl: 150 } });
    await queue.cancel(first.id);
    expect((await queue.add('ping', { n: 2 }, { dedup: { key: 'w', ttl: 150 } })).id).toBe(first.id);
    await new Promise((r) => setTimeout(r, 200));
    expect((await queue.add('ping', { n: 3 }, { dedup: { key: 'w', ttl: 150 } })).id).not.toBe(first.id);
  });

  it('adds a bulk in one script call per 1,000 jobs', async () => {
    // A producer of its own whose id draws (reserve-ids, a script too) are counted apart.
    const draws: number[] = [];
    const counted = new Proxy(store, {
      get(target, prop) {
        if (prop === 'reserveIds') return (name: string, count: number) => (draws.push(count), target.reserveIds(name, count));
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const producer = new Queue<{ n: number }>('add', { store: counted });
    const before = await evalCalls(store);
    const jobs = await producer.addBulk(Array.from({ length: 2500 }, (_, n) => ({ name: 'bulk', data: { n } })));
    expect(await evalCalls(store)).toBe(before + 3 + draws.length);
    expect(draws[0]).toBe(2500); // the bulk's ids in one draw
    expect(jobs).toHaveLength(2500);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(2500);
    const claimed = await store.claim('add', { count: 3, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs);
    expect(claimed.map((r) => JSON.parse(r.data).n)).toEqual([0, 1, 2]);
    for (const r of claimed) await store.release('add', { id: r.id, token: r.token! });
  });

  it('puts delayed jobs in the delayed index with their run time', async () => {
    const job = await queue.add('later', { n: 1 }, { delay: 5_000 });
    expect(job.state).toBe('delayed');
    expect(job.runAt! - job.createdAt).toBe(5_000);
    expect(await store.getCounts('add')).toMatchObject({ delayed: 1 });
  });
});

/** EVAL + EVALSHA calls the server has executed (INFO commandstats). */
async function evalCalls(store: RedisStore): Promise<number> {
  const info = String(await commandOf(store, 'test').sendCommand(['INFO', 'commandstats']));
  let total = 0;
  for (const match of info.matchAll(/^cmdstat_(evalsha|eval):calls=(\d+)/gm)) total += Number(match[2]);
  return total;
}

describe('add (isolated prefix)', () => {
  it('two prefixes on one Redis never see each other', async () => {
    const a = await testStore(redisUrl(), uniquePrefix('a'));
    const b = await testStore(redisUrl(), uniquePrefix('b'));
    const job = await new Queue('same-name', { store: a }).add('x', 1);
    expect(await new Queue('same-name', { store: b }).getJob(job.id)).toBeNull();
    await a.disconnect();
    await b.disconnect();
  });
});
