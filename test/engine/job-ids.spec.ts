import { FlowProducer, InvalidArgumentError, Queue } from '../../lib/index.js';
import { ID_BASE, RENUMBER_MARGIN } from '../../lib/engine/ids.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { testStore, uniquePrefix } from '../helpers/store.js';

/** Ids of jobs added without a jobId: numbers from the queue's counter (lib/engine/ids, RedisStore.reserveIds). */
describe('job ids', () => {
  const h = engineHarness();

  it('numbers the jobs of a queue from 1000000001, in the order they were added', async () => {
    const queue = h.queue('numbered');
    const [first] = await queue.addBulk([{ name: 'a', data: 1 }]);
    const more = await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'b', data: i })));
    expect(first!.id).toBe('1000000001');
    expect(more.map((j) => j.id)).toEqual(Array.from({ length: 20 }, (_, i) => String(1_000_000_002 + i)));
    expect((await queue.getJob('1000000007'))?.data).toBe(5);
  });

  it('runs a bulk of delayed jobs due in one millisecond in the order it was added (ties go by id)', async () => {
    const queue = h.queue<number>('ties');
    // Twelve ids: had they been 1..12, "10" < "2" would run the tenth second.
    await queue.addBulk(Array.from({ length: 12 }, (_, i) => ({ name: 'later', data: i, opts: { delay: 30 } })));
    const ran: number[] = [];
    h.worker<number>('ties', async (job) => void ran.push(job.data), { concurrency: 1 });
    await waitFor(() => ran.length === 12, { message: 'the twelve delayed jobs ran' });
    expect(ran).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });

  it('never gives two producers the same id, however their adds interleave', async () => {
    // Two connections on one keyspace, as two processes have.
    const prefix = uniquePrefix();
    const stores = await Promise.all([testStore(undefined, prefix), testStore(undefined, prefix)]);
    try {
      const [a, b] = stores.map((store) => new Queue<number>('shared', { store }));
      const adds = Array.from({ length: 400 }, (_, i) => (i % 2 === 0 ? a! : b!).add('x', i));
      const bulks = [a!, b!].map((q, k) => q.addBulk(Array.from({ length: 1500 }, (_, i) => ({ name: 'y', data: 10_000 * (k + 1) + i }))));
      const ids = [...(await Promise.all(adds)), ...(await Promise.all(bulks)).flat()].map((j) => j.id);
      expect(new Set(ids).size).toBe(3400);
      expect((await a!.getCounts()).waiting).toBe(3400);
      // Every id is drawn from the counter, not made up.
      const counter = Number(await commandOf(stores[0]!).sendCommand(['HGET', keysOf(stores[0]!, 'shared').meta, 'ids']));
      expect(Math.max(...ids.map(Number))).toBeLessThanOrEqual(ID_BASE + counter);
      expect(await a!.verify()).toEqual([]);
    } finally {
      await Promise.all(stores.map((s) => s.disconnect()));
    }
  });

  it('loses no job when the counter goes back (a failover lost its last draws): taken numbers are skipped or renumbered', async () => {
    const prefix = uniquePrefix();
    const stores = await Promise.all([0, 1, 2].map(() => testStore(undefined, prefix)));
    const counterLost = () => commandOf(stores[0]!).sendCommand(['HDEL', keysOf(stores[0]!, 'lost').meta, 'ids']);
    try {
      const [a, b, c] = stores.map((store) => new Queue<string>('lost', { store }));
      // A draws its first block (1..16) with its first add and has written none of those numbers when the counter is lost.
      const added = [await a!.add('a', 'a-own', { jobId: 'a:own' })];
      await counterLost();
      // B draws the same block from the counter that started over, and writes first.
      added.push(...(await Promise.all(Array.from({ length: 5 }, (_, i) => b!.add('b', `b${i}`)))));
      expect(added.slice(1).map((j) => j.id)).toEqual(['1000000001', '1000000002', '1000000003', '1000000004', '1000000005']);
      // A's adds meet B's jobs: the add numbers them anew (includes/ids), never returning B's.
      const fromA = await Promise.all(Array.from({ length: 8 }, (_, i) => a!.add('a', `a${i}`)));
      expect(fromA.filter((j) => Number(j.id) > ID_BASE + RENUMBER_MARGIN).length).toBeGreaterThan(0);
      added.push(...fromA);
      // Lost again: C's first draw finds its block's numbers held and skips past them (reserve-ids).
      await counterLost();
      const fromC = await c!.addBulk(Array.from({ length: 3 }, (_, i) => ({ name: 'c', data: `c${i}` })));
      expect(Number(fromC[0]!.id)).toBeGreaterThan(1_000_000_016);
      added.push(...fromC);
      expect(new Set(added.map((j) => j.id)).size).toBe(added.length);
      // Each add's job is its own, stored under the id it was given.
      for (const job of added) expect((await a!.getJob(job.id))!.data).toBe(job.data);
      expect((await a!.getCounts()).waiting).toBe(added.length);
      expect(await a!.verify()).toEqual([]);
    } finally {
      await Promise.all(stores.map((s) => s.disconnect()));
    }
  });

  it('adds a flow whose numbers jobs took after the counter went back, under fresh numbers', async () => {
    const prefix = uniquePrefix();
    const stores = await Promise.all([0, 1].map(() => testStore(undefined, prefix)));
    try {
      const flows = new FlowProducer({ store: stores[0]! });
      const first = await flows.add({ name: 'parent', queueName: 'tree', data: 'p1', children: [{ name: 'kid', queueName: 'tree', data: 'k1' }] });
      // The flow producer holds 1..16 and used 1 and 2; the counter is back at 2 (a failover lost the draw's last part).
      await commandOf(stores[0]!).sendCommand(['HSET', keysOf(stores[0]!, 'tree').meta, 'ids', '2']);
      // Another producer draws 3..18 and writes the numbers the flow producer would use next.
      const other = new Queue<string>('tree', { store: stores[1]! });
      const taken = await other.addBulk(Array.from({ length: 4 }, (_, i) => ({ name: 'other', data: `o${i}` })));
      expect(taken.map((j) => j.id)).toEqual(['1000000003', '1000000004', '1000000005', '1000000006']);
      const second = await flows.add({ name: 'parent', queueName: 'tree', data: 'p2', children: [{ name: 'kid', queueName: 'tree', data: 'k2' }] });
      const ids = [first.job.id, first.children![0]!.job.id, second.job.id, second.children![0]!.job.id, ...taken.map((j) => j.id)];
      expect(new Set(ids).size).toBe(8);
      const q = new Queue<string>('tree', { store: stores[0]! });
      expect((await q.getJob(second.job.id))!.data).toBe('p2');
      expect((await q.getJob(second.children![0]!.job.id))!.parent).toEqual({ queue: 'tree', id: second.job.id });
      for (const job of taken) expect((await q.getJob(job.id))!.data).toBe(job.data);
    } finally {
      await Promise.all(stores.map((s) => s.disconnect()));
    }
  });

  it('refuses a custom jobId that is a decimal number, naming the field and the fix, and writes nothing', async () => {
    const queue = h.queue('custom');
    const err = await queue.add('x', 1, { jobId: '42' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as Error).message).toMatch(/opts\.jobId.*decimal number.*'order:42'/);
    expect((await queue.getCounts()).waiting).toBe(0);
    // Other ids with digits stay allowed.
    for (const jobId of ['order:42', '042', '-1', '4.2', '42a']) expect((await queue.add('x', 1, { jobId })).id).toBe(jobId);
  });
});
