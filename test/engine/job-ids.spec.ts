import { InvalidArgumentError, Queue } from '../../lib/index.js';
import { ID_BASE } from '../../lib/engine/ids.js';
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
