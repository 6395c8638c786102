import { Queue } from '../../lib/engine/queue.js';
import { QueueEvents } from '../../lib/engine/queue-events.js';
import type { QueueEvent } from '../../lib/engine/queue-events-types.js';
import { MemoryStore } from '../../lib/testing/memory.js';
import { waitFor } from '../helpers/wait-for.js';

// What is particular to MemoryStore's operations API and event stream (the shared behaviour is in test/store-contract).
describe('MemoryStore: operations API and event stream', () => {
  let store: MemoryStore;
  let queue: Queue;
  beforeEach(async () => {
    store = new MemoryStore({ clock: 'manual' });
    await store.connect();
    queue = new Queue('ops', { store });
  });
  afterEach(async () => {
    await queue.close();
    await store.disconnect();
  });

  it('nothing of the operations API rejects any more', async () => {
    await queue.add('x', {});
    expect((await queue.getFailed({ limit: 5 })).jobs).toEqual([]);
    expect(await queue.purge('completed')).toBe(0);
    expect(await queue.redrive({ filter: {} })).toBe(0);
    expect((await queue.getMetrics()).counts.waiting).toBe(1);
    expect(await queue.countJobs('waiting', { name: 'x' })).toBe(1);
  });

  it('a QueueEvents waits for the next event and closes at once, with no timer left on the clock', async () => {
    const events = new QueueEvents('ops', { store, blockMs: 60_000 });
    const got: QueueEvent[] = [];
    events.on('event', (e) => got.push(e));
    await events.ready();
    await queue.add('x', {});
    await waitFor(() => got.length === 1);
    expect(got[0]).toMatchObject({ event: 'added', name: 'x', state: 'waiting' });
    const started = Date.now();
    await events.close();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(store.clock.pending).toBe(0);
  });

  it('event ids follow the store clock and stay ordered when it stands still', async () => {
    const events = new QueueEvents('ops', { store, from: '0' });
    const got: QueueEvent[] = [];
    events.on('event', (e) => got.push(e));
    const at = store.clock.now();
    await queue.add('a', {});
    await queue.add('b', {});
    await store.clock.advance(5_000);
    await queue.add('c', {});
    await waitFor(() => got.length === 3);
    expect(got.map((e) => e.id)).toEqual([`${at}-0`, `${at}-1`, `${at + 5000}-0`]);
    await events.close();
  });

  it('answers ping and lists its queues', async () => {
    await queue.add('x', {});
    expect(await store.ping()).toBe(0);
    expect(await store.listQueues()).toEqual(['ops']);
  });
});
