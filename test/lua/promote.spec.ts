import { Queue, type RedisStore } from '../../lib/index.js';
import type { SchedMessage } from '../../lib/store/index.js';
import { testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

describe('promote', () => {
  let store: RedisStore;
  let queue: Queue;

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue('promote', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('moves due jobs to waiting in due order and reports the next due time', async () => {
    await queue.add('later', {}, { delay: 60_000 });
    await queue.add('b', {}, { delay: 30 });
    await queue.add('a', {}, { delay: 10 });
    await new Promise((r) => setTimeout(r, 50));
    const { moved, nextDueIn } = await store.promote('promote', 100);
    expect(moved).toBe(2);
    expect(nextDueIn).toBeGreaterThan(59_000);
    expect(nextDueIn).toBeLessThanOrEqual(60_000);
    const claimed = await store.claim('promote', { count: 5, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs);
    expect(claimed.map((r) => r.name)).toEqual(['a', 'b']);
    for (const r of claimed) await store.release('promote', { id: r.id, token: r.token! });
  });

  it('announces a new earliest delayed job so workers re-arm their timer', async () => {
    const heard: SchedMessage[] = [];
    const off = await store.notify.onScheduled((m) => heard.push(m));
    await queue.add('far', {}, { delay: 60_000 });
    await queue.add('farther', {}, { delay: 90_000 });
    await queue.add('near', {}, { delay: 1_000 });
    await waitFor(() => heard.length === 2, { message: 'two delayed announcements' });
    expect(heard.map((m) => m.kind)).toEqual(['delayed', 'delayed']);
    expect(heard[1]).toEqual({ kind: 'delayed', queue: 'promote', dueIn: 1_000 });
    await off();
  });
});
