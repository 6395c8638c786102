import { Queue, Worker, type Handler, type QueueOptions, type RedisStore, type WorkerOptions } from '../../lib/index.js';
import { testStore } from './store.js';

type QueueExtra = Omit<QueueOptions, 'store'>;
type WorkerExtra = Omit<WorkerOptions, 'store'>;

/**
 * Per-test store, queues and workers on the run's Redis (or `where.url`'s: a
 * test that leaves a large backlog behind keeps it off the shared server,
 * whose every SCAN walk, verify()'s included, would pay for it in the test
 * files that run after). After each test the
 * workers are closed, every queue used is checked with verify() (DESIGN
 * invariant 1) and the store is disconnected.
 */
export function engineHarness(defaults: WorkerExtra = {}, where: { url?: () => string; hookTimeoutMs?: number } = {}) {
  let store: RedisStore | undefined;
  const queues: Queue<never, never>[] = [];
  const workers: Worker<never, never>[] = [];

  beforeEach(async () => {
    store = await testStore(where.url?.());
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close({ timeout: 2000 })));
    const problems = (await Promise.all(queues.splice(0).map((q) => q.verify()))).flat();
    await store?.disconnect();
    store = undefined;
    expect(problems).toEqual([]);
  }, where.hookTimeoutMs);

  return {
    get store(): RedisStore {
      if (!store) throw new Error('the harness store exists only inside a test');
      return store;
    },
    queue<Data = unknown, Result = unknown>(name: string, options: QueueExtra = {}): Queue<Data, Result> {
      const queue = new Queue<Data, Result>(name, { store: this.store, ...options });
      queues.push(queue as unknown as Queue<never, never>);
      return queue;
    },
    worker<Data = unknown, Result = unknown>(name: string, handler: Handler<Data, Result>, options: WorkerExtra = {}): Worker<Data, Result> {
      const worker = new Worker<Data, Result>(name, handler, { store: this.store, ...defaults, ...options });
      workers.push(worker as unknown as Worker<never, never>);
      return worker;
    },
  };
}
