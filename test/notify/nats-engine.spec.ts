import { FlowProducer, JobCancelledError, NatsNotify, NatsUnavailableError, Queue, RedisStore, Worker, type ActiveJob, type Job } from '../../lib/index.js';
import type { ClaimOutcome, Fetch } from '../../lib/store/index.js';
import { NatsServer } from '../helpers/nats-server.js';
import { freePort } from '../helpers/redis-server.mjs';
import { redisUrl, silentLogger, uniquePrefix } from '../helpers/store.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';

/** A store whose claim calls are counted: the herd shows up as claims. */
class CountingStore extends RedisStore {
  claims = 0;
  override async claim(queue: string, fetch: Fetch): Promise<ClaimOutcome> {
    this.claims += 1;
    return super.claim(queue, fetch);
  }
}

/** The engine's wake, cancel and flow-wait paths with NATS carrying the messages. */
describe('the engine on NATS', () => {
  let nats: NatsServer;
  let notify: NatsNotify;
  let store: CountingStore;
  const workers: Worker[] = [];

  beforeAll(async () => {
    nats = await NatsServer.start();
  });
  afterAll(async () => {
    await nats?.dispose();
  });

  async function open(kvBucket: string | undefined): Promise<void> {
    notify = new NatsNotify({ servers: nats.url, subjectPrefix: `e.${uniquePrefix()}`, logger: silentLogger, ...(kvBucket && { kvBucket }) });
    store = new CountingStore({ url: redisUrl(), prefix: uniquePrefix(), notify, logger: silentLogger });
    await store.connect();
  }
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close({ timeout: 2000 })));
    await store?.disconnect();
    await notify?.close();
  });

  function worker<D, R>(queue: string, handler: (job: ActiveJob<D>) => Promise<R>, options: { pollInterval?: number; lockDuration?: number } = {}): Worker<D, R> {
    // pollInterval far beyond the test unless given: what happens comes from messages.
    const w = new Worker<D, R>(queue, handler, { store, pollInterval: 600_000, logger: silentLogger, ...options });
    workers.push(w as unknown as Worker);
    return w;
  }

  async function herd(queueName: string): Promise<number> {
    const queue = new Queue(queueName, { store });
    for (let i = 0; i < 20; i++) worker(queueName, async () => 'ok');
    await Promise.all(workers.map((w) => w.run()));
    await waitFor(() => store.claims >= 20, { message: 'each worker to look once at start' });
    store.claims = 0;
    await queue.addBulk([{ name: 'a', data: 1 }, { name: 'b', data: 2 }, { name: 'c', data: 3 }]);
    await waitFor(async () => (await queue.getCounts()).completed === 3, { message: '3 jobs done' });
    expect(await queue.verify()).toEqual([]);
    return store.claims;
  }

  it('with a KV bucket, 20 idle workers and 3 new jobs cost about 3 claims, not 20', async () => {
    await open('engine_hints');
    const claims = await herd('herd-kv');
    expect(claims).toBeGreaterThanOrEqual(1);
    expect(claims).toBeLessThanOrEqual(4);
  });

  it('without a bucket every idle worker wakes and claims (no wake-up is ever skipped)', async () => {
    await open(undefined);
    const claims = await herd('herd-open');
    expect(claims).toBeGreaterThanOrEqual(20);
  });

  it("cancels a running job through the holder's ownership subject", async () => {
    await open('engine_hints');
    const queue = new Queue('n-cancel', { store });
    let reason: unknown;
    // Leases renewed every 30 s: within the test only NATS can tell the holder.
    const w = worker('n-cancel', (job) => new Promise((_, reject) => job.signal.addEventListener('abort', () => reject((reason = job.signal.reason)))), { lockDuration: 60_000 });
    await w.run();
    const started = nextEvent<[ActiveJob]>(w, 'active');
    const cancelled = nextEvent<[ActiveJob]>(w, 'cancelled');
    const job = await queue.add('long', {});
    await started;
    expect(await queue.cancel(job.id)).toBe('cancelling');
    expect((await cancelled)[0].id).toBe(job.id);
    expect(reason).toBeInstanceOf(JobCancelledError);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'cancelled' });
  });

  it('wakes a waitUntilFinished on the done subject, and a flow parent after its child', async () => {
    await open('engine_hints');
    const queue = new Queue('n-wait', { store });
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await worker('n-wait', async (job: ActiveJob<{ n: number }>) => {
      if (job.name === 'child') await gate;
      return job.data.n * 2;
    }).run();
    const tree = await new FlowProducer({ store }).add({ name: 'parent', queueName: 'n-wait', data: { n: 1 }, children: [{ name: 'child', queueName: 'n-wait', data: { n: 21 } }] });
    const child = tree.children![0]!.job as Job<{ n: number }, number>;
    const waiting = child.waitUntilFinished({ timeout: 5000 });
    await new Promise((r) => setImmediate(r));
    const releasedAt = Date.now();
    release();
    await expect(waiting).resolves.toBe(42);
    // The fallback poll runs every second: a wake-up well under it came from the subject.
    expect(Date.now() - releasedAt).toBeLessThan(900);
    await expect(tree.job.waitUntilFinished({ timeout: 5000 })).resolves.toBe(2);
    expect(await queue.verify()).toEqual([]);
  });

  it('survives a NATS restart: the poll covers the gap, subscriptions come back, no job is lost', async () => {
    await open('engine_hints');
    const queue = new Queue('n-restart', { store });
    const done = new Set<number>();
    for (let i = 0; i < 2; i++) await worker('n-restart', async (job: ActiveJob<number>) => void done.add(job.data), { pollInterval: 300 }).run();
    let reconnects = 0;
    const offReconnect = notify.onReconnect(() => (reconnects += 1));
    await queue.addBulk([0, 1, 2, 3, 4].map((n) => ({ name: 'x', data: n })));
    await waitFor(() => done.size === 5, { message: 'the first jobs' });
    await nats.stop();
    await queue.addBulk([5, 6, 7, 8, 9].map((n) => ({ name: 'x', data: n })));
    await waitFor(() => done.size === 10, { message: 'jobs added while NATS was down (found by the poll)' });
    await nats.restart();
    await waitFor(() => reconnects > 0, { timeout: 10_000, message: 'the NATS client to reconnect' });
    offReconnect();
    const heard: string[] = [];
    const off = await store.notify.onScheduled((m) => heard.push(m.queue));
    await waitFor(async () => (await queue.getCounts()).active === 0, { message: 'workers idle' });
    await queue.addBulk([10, 11, 12, 13, 14].map((n) => ({ name: 'x', data: n })));
    await waitFor(() => done.size === 15, { message: 'jobs added after the restart' });
    await waitFor(() => heard.includes('n-restart'), { message: 'a wake-up over the restored subscription' });
    await off();
    expect((await queue.getCounts()).completed).toBe(15);
    expect(await queue.verify()).toEqual([]);
  });

  it('NATS down at start: a worker refuses to start with NatsUnavailableError; producers still add', async () => {
    const port = await freePort();
    notify = new NatsNotify({ servers: `nats://127.0.0.1:${port}`, connectTimeout: 1000, logger: silentLogger });
    store = new CountingStore({ url: redisUrl(), prefix: uniquePrefix(), notify, logger: silentLogger });
    await store.connect();
    const err = await notify.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NatsUnavailableError);
    expect((err as Error).message).toContain(`nats://127.0.0.1:${port}`);
    const w = new Worker('n-down', async () => 'ok', { store, autorun: false, logger: silentLogger });
    await expect(w.run()).rejects.toBeInstanceOf(NatsUnavailableError);
    await w.close();
    const queue = new Queue('n-down', { store });
    const job = await queue.add('x', {});
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'waiting' });
  });
});
