import { QueueFullError } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { commandOf } from '../helpers/redis-access.js';
import { storeKind } from '../helpers/store-kind.js';

describe('backpressure (maxWaiting)', () => {
  const h = engineHarness();

  /** Redis keys under the prefix; on PostgreSQL 0 (a refused batch is checked there through getJob and getCounts, as on Redis). */
  async function keyCount(prefix: string): Promise<number> {
    if (storeKind() !== 'redis') return 0;
    const keys = (await commandOf(h.store, 'test').sendCommand(['KEYS', `${prefix}*`])) as string[];
    return keys.length;
  }

  it('throws QueueFullError at the limit and writes nothing of a refused batch', async () => {
    const queue = h.queue('bounded');
    await queue.configure({ maxWaiting: 10 });
    await queue.addBulk(Array.from({ length: 8 }, (_, i) => ({ name: 'j', data: i })));
    const before = await keyCount(h.store.prefix);
    const refused = await queue.addBulk(Array.from({ length: 3 }, (_, i) => ({ name: 'j', data: i, opts: { jobId: `over-${i}` } }))).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QueueFullError);
    expect(refused).toMatchObject({ queue: 'bounded', limit: 10 });
    expect((refused as Error).message).toMatch(/maxWaiting|10/);
    expect(await keyCount(h.store.prefix)).toBe(before);
    expect(await queue.getJob('over-0')).toBeNull();
    expect((await queue.getCounts()).waiting).toBe(8);
    // Up to the limit is fine; one more is not.
    await queue.addBulk([{ name: 'j', data: 'ninth' }, { name: 'j', data: 'tenth' }]);
    await expect(queue.add('j', 'eleventh')).rejects.toThrow(QueueFullError);
    expect((await queue.getCounts()).waiting).toBe(10);
  });

  it('counts delayed jobs only once they wait, and re-adding an existing id is not refused', async () => {
    const queue = h.queue('bounded-delay');
    await queue.configure({ maxWaiting: 1 });
    await queue.add('j', 1, { jobId: 'only' });
    await expect(queue.add('j', 1, { jobId: 'only' })).resolves.toMatchObject({ id: 'only' });
    await expect(queue.add('j', 2)).rejects.toThrow(QueueFullError);
  });

  it('limits each group on its own with maxWaitingPerGroup', async () => {
    const queue = h.queue('bounded-groups');
    await queue.configure({ maxWaitingPerGroup: 3 });
    await queue.addBulk(Array.from({ length: 3 }, (_, i) => ({ name: 'j', data: i, opts: { group: { id: 'x' } } })));
    const refused = await queue.add('j', 4, { group: { id: 'x' } }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QueueFullError);
    expect(refused).toMatchObject({ limit: 3, group: 'x' });
    // Other groups, and jobs without a group, are not held back by x.
    await queue.addBulk(Array.from({ length: 3 }, (_, i) => ({ name: 'j', data: i, opts: { group: { id: 'y' } } })));
    await queue.add('j', 'ungrouped');
    expect((await queue.getGroup('x')).waiting).toBe(3);
    expect((await queue.getCounts()).waiting).toBe(7);
  });

  it('frees room as jobs start', async () => {
    const queue = h.queue('bounded-drain');
    await queue.configure({ maxWaiting: 2 });
    await queue.addBulk([{ name: 'j', data: 1 }, { name: 'j', data: 2 }]);
    await expect(queue.add('j', 3)).rejects.toThrow(QueueFullError);
    const claimed = await h.store.claim('bounded-drain', { count: 1, workerId: 'w', lockMs: 10_000 });
    expect(claimed.jobs).toHaveLength(1);
    await expect(queue.add('j', 3)).resolves.toMatchObject({ state: 'waiting' });
    await h.store.release('bounded-drain', { id: claimed.jobs[0]!.id, token: claimed.jobs[0]!.token! });
  });
});
