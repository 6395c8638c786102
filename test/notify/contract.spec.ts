import { NatsNotify, Queue, RedisStore } from '../../lib/index.js';
import type { FinishedMessage, NotifyAdapter, OwnershipMessage, SchedMessage, Store } from '../../lib/store/index.js';
import { NatsServer } from '../helpers/nats-server.js';
import { testPostgresStore, usePostgresServer } from '../helpers/postgres.js';
import { redisUrl, silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * One contract for every NotifyAdapter (DESIGN: a behaviour a user can
 * observe is the same on all of them): the same store transitions must
 * reach the listeners with the same messages, whether the scripts PUBLISH
 * them on Redis, report them for NATS to carry, or NOTIFY them on commit
 * (PostgresStore's LISTEN/NOTIFY).
 */
let nats: NatsServer;
beforeAll(async () => {
  nats = await NatsServer.start();
});
afterAll(async () => {
  await nats?.dispose();
});
const postgres = usePostgresServer();

/** A connected store whose `notify` is the adapter under test; `adapter` is closed after the test when the store does not own it. */
type Opened = { readonly store: Store; readonly adapter?: NotifyAdapter };

async function redisWith(adapter: NotifyAdapter | undefined): Promise<Opened> {
  const store = new RedisStore({ url: redisUrl(), prefix: uniquePrefix(), logger: silentLogger, ...(adapter && { notify: adapter }) });
  await store.connect();
  return { store, ...(adapter && { adapter }) };
}

const adapters: [string, () => Promise<Opened>][] = [
  ['Redis pub/sub', () => redisWith(undefined)],
  ['NATS with a KV bucket', () => redisWith(new NatsNotify({ servers: nats.url, kvBucket: 'contract_hints', subjectPrefix: `c.${uniquePrefix()}`, logger: silentLogger }))],
  ['NATS without a bucket', () => redisWith(new NatsNotify({ servers: nats.url, subjectPrefix: `c.${uniquePrefix()}`, logger: silentLogger }))],
  ['PostgreSQL LISTEN/NOTIFY', async () => ({ store: await testPostgresStore(postgres()) })],
];

describe.each(adapters)('notify contract: %s', (_name, open) => {
  let store: Store;
  let adapter: NotifyAdapter | undefined;
  const off: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    ({ store, adapter } = await open());
  });
  afterEach(async () => {
    await Promise.all(off.splice(0).map((f) => f()));
    await store.disconnect();
    await adapter?.close();
  });

  function collect<T>(subscribe: (listener: (m: T) => void) => Promise<() => Promise<void>>): Promise<T[]> {
    const seen: T[] = [];
    return subscribe((m) => seen.push(m)).then((unsubscribe) => {
      off.push(unsubscribe);
      return seen;
    });
  }

  /** A claim that finds nothing leaves the idle marker: the next add announces. */
  async function idle(queue: string): Promise<void> {
    expect((await store.claim(queue, { count: 1, workerId: 'w', lockMs: 5000 })).jobs).toEqual([]);
  }

  it('announces new waiting work on an idle queue, naming the queue', async () => {
    const sched = await collect<SchedMessage>((l) => store.notify.onScheduled(l));
    await idle('c-wait');
    await new Queue('c-wait', { store }).add('x', {});
    await waitFor(() => sched.length > 0, { message: 'a sched message' });
    expect(sched).toEqual([{ kind: 'waiting', queue: 'c-wait' }]);
  });

  it('announces a new earliest delayed job with the time until it is due', async () => {
    const sched = await collect<SchedMessage>((l) => store.notify.onScheduled(l));
    await new Queue('c-delay', { store }).add('x', {}, { delay: 5000 });
    await waitFor(() => sched.length > 0, { message: 'a sched message' });
    expect(sched[0]).toMatchObject({ kind: 'delayed', queue: 'c-delay' });
    expect((sched[0] as { dueIn: number }).dueIn).toBeGreaterThan(4000);
    expect((sched[0] as { dueIn: number }).dueIn).toBeLessThanOrEqual(5000);
  });

  it('tells the holder of an active job that a cancel was requested, with its token', async () => {
    const owls = await collect<OwnershipMessage>((l) => store.notify.onOwnershipLost(l));
    const queue = new Queue('c-cancel', { store });
    const job = await queue.add('x', {});
    const [claimed] = (await store.claim('c-cancel', { count: 1, workerId: 'w', lockMs: 5000 })).jobs;
    expect(await queue.cancel(job.id)).toBe('cancelling');
    await waitFor(() => owls.length > 0, { message: 'an ownership message' });
    expect(owls).toEqual([{ kind: 'cancel', queue: 'c-cancel', id: job.id, token: claimed!.token }]);
  });

  it('tells the old holder of a reaped lease, with its token', async () => {
    const owls = await collect<OwnershipMessage>((l) => store.notify.onOwnershipLost(l));
    const job = await new Queue('c-reap', { store }).add('x', {});
    const [claimed] = (await store.claim('c-reap', { count: 1, workerId: 'w', lockMs: 1 })).jobs;
    await waitFor(async () => (await store.reap('c-reap', 5, 10)).length === 1, { message: 'the lease to expire and be reaped' });
    await waitFor(() => owls.length > 0, { message: 'an ownership message' });
    expect(owls).toEqual([{ kind: 'lost', queue: 'c-reap', id: job.id, token: claimed!.token }]);
  });

  it('announces a watched job that finished, with its state', async () => {
    const done = await collect<FinishedMessage>((l) => store.notify.onFinished(l));
    const job = await new Queue('c-done', { store }).add('x', {});
    expect(await store.watch('c-done', job.id)).toBe('waiting');
    const [claimed] = (await store.claim('c-done', { count: 1, workerId: 'w', lockMs: 5000 })).jobs;
    await store.complete('c-done', { id: job.id, token: claimed!.token! }, '"ok"', { count: 0, workerId: 'w', lockMs: 5000 });
    await waitFor(() => done.length > 0, { message: 'a done message' });
    expect(done).toEqual([{ queue: 'c-done', id: job.id, state: 'completed' }]);
  });

  it('shares one subscription: a listener that left hears nothing, the others and later ones still do', async () => {
    const first: SchedMessage[] = [];
    const second: SchedMessage[] = [];
    const offFirst = await store.notify.onScheduled((m) => first.push(m));
    const offSecond = await store.notify.onScheduled((m) => second.push(m));
    const queue = new Queue('c-share', { store });
    await idle('c-share');
    await queue.add('x', 1);
    await waitFor(() => first.length === 1 && second.length === 1, { message: 'both listeners to hear it' });
    await offFirst();
    await idle('c-share-2');
    await new Queue('c-share-2', { store }).add('x', 2);
    await waitFor(() => second.length === 2, { message: 'the remaining listener to hear it' });
    await offSecond();
    // Every listener gone (subscription closed), then a new one: it subscribes again and hears the next.
    const third = await collect<SchedMessage>((l) => store.notify.onScheduled(l));
    await idle('c-share-3');
    await new Queue('c-share-3', { store }).add('x', 3);
    await waitFor(() => third.length === 1, { message: 'a new listener to hear it' });
    expect(first).toEqual([{ kind: 'waiting', queue: 'c-share' }]);
    expect(second.map((m) => m.queue)).toEqual(['c-share', 'c-share-2']);
    expect(third).toEqual([{ kind: 'waiting', queue: 'c-share-3' }]);
  });
});
