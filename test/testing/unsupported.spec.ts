import { Queue } from '../../lib/engine/queue.js';
import { QueueEvents } from '../../lib/engine/queue-events.js';
import { MemoryStore, MemoryStoreUnsupportedError } from '../../lib/testing/memory.js';

// What MemoryStore does not carry yet fails loudly and by name, never silently wrong.
describe('MemoryStore: operations it does not carry yet', () => {
  let store: MemoryStore;
  let queue: Queue;
  beforeEach(async () => {
    store = new MemoryStore();
    await store.connect();
    queue = new Queue('ops', { store });
    await queue.add('x', {});
  });
  afterEach(async () => {
    await queue.close();
    await store.disconnect();
  });

  it.each([
    ['getFailed', () => queue.getFailed({ limit: 5 })],
    ['purge', () => queue.purge('completed')],
    ['redrive by filter', () => queue.redrive({ filter: {} })],
    ['getMetrics', () => queue.getMetrics()],
  ])('%s rejects with MemoryStoreUnsupportedError naming the way out', async (_name, call) => {
    await expect(call()).rejects.toThrow(MemoryStoreUnsupportedError);
    await expect(call()).rejects.toThrow(/run this test against a RedisStore/);
  });

  it('a QueueEvents on it sees nothing and closes at once', async () => {
    const events = new QueueEvents('ops', { store, blockMs: 60_000 });
    await events.ready();
    const started = Date.now();
    await events.close();
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('answers ping and lists its queues', async () => {
    expect(await store.ping()).toBe(0);
    expect(await store.listQueues()).toEqual(['ops']);
  });
});
