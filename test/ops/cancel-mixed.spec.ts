import type { RedisStore } from '../../lib/index.js';
import { Queue } from '../../lib/index.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { testStore } from '../helpers/store.js';
import { redisOnly } from '../helpers/store-kind.js';

/**
 * Bulk cancel by id (lua/cancel-waiting.lua) over a queue whose waiting jobs
 * sit in every lane: the fifo list, the wait sorted set (priorities) and
 * group sets. Ids come in any order (an operator's SCAN of job keys), so a
 * call's listed jobs lie far apart in the list: most are found by a binary
 * search of the list, after earlier ones of the same call were marked for
 * removal. Those marks once broke the search: the job was then removed by a
 * scan that shortened the list under the remaining searches (and shifted the
 * positions found), and the script failed with "attempt to compare boolean
 * with number".
 */
describe('bulk cancel on a mixed queue', () => {
  let store: RedisStore;
  let queue: Queue<number>;

  beforeEach(async () => {
    store = await testStore();
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  const listed = async (name: string): Promise<string[]> =>
    (await commandOf(store).sendCommand(['LRANGE', keysOf(store, name).fifo, '0', '-1'])) as string[];

  redisOnly('reads the Redis FIFO list the cancel searches')('cancels listed jobs far apart in one call, whatever order their ids come in', async () => {
    queue = new Queue<number>('spread', { store });
    const jobs: string[] = [];
    for (let i = 0; i < 6; i++) {
      const bulk = await queue.addBulk(Array.from({ length: 1000 }, (_, j) => ({ name: 'n', data: i * 1000 + j })));
      jobs.push(...bulk.map((job) => job.id));
    }
    expect(await listed('spread')).toEqual(jobs);
    // The first job (the search window starts there and reaches 2,000 entries), then one in 33 past
    // the window and the last: each of these is found by its own search of the list, whose probes
    // land on jobs this same call marked before it; the last one's search reaches the list's end.
    // Given newest first, as a SCAN would mix them.
    const chosen = [0, ...Array.from({ length: 98 }, (_, k) => 2000 + 33 * k), 5999];
    const ids = chosen.map((at) => jobs[at]!).reverse();
    expect(await queue.cancel(ids)).toBe(100);
    const gone = new Set(ids);
    expect(await listed('spread')).toEqual(jobs.filter((id) => !gone.has(id)));
    expect(await queue.getCounts()).toMatchObject({ waiting: 5900, cancelled: 100 });
  });

  redisOnly('takes the ids in Redis SCAN order')('cancels 20,000 waiting jobs (plain, prioritized, in 50 groups) by ids in SCAN order, 1,000 at a time', async () => {
    queue = new Queue<number>('mixed', { store });
    const plain = 13_000;
    const prioritized = 4_000;
    const grouped = 3_000;
    for (let i = 0; i < plain; i += 1000) {
      await queue.addBulk(Array.from({ length: 1000 }, (_, j) => ({ name: 'plain', data: i + j })));
    }
    for (let i = 0; i < prioritized; i += 1000) {
      await queue.addBulk(Array.from({ length: 1000 }, (_, j) => ({ name: 'urgent', data: i + j, opts: { priority: 1 + ((i + j) % 5) } })));
    }
    for (let i = 0; i < grouped; i += 1000) {
      await queue.addBulk(Array.from({ length: 1000 }, (_, j) => ({ name: 'tenant', data: i + j, opts: { group: { id: `g${(i + j) % 50}` } } })));
    }
    expect(await queue.getCounts()).toMatchObject({ waiting: 20_000 });

    const keys = keysOf(store, 'mixed');
    const ids: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = (await commandOf(store).sendCommand(['SCAN', cursor, 'MATCH', `${keys.jobPrefix.replace(/[{}]/g, '\\$&')}*`, 'COUNT', '1000'])) as [string, string[]];
      ids.push(...batch.map((key) => key.slice(keys.jobPrefix.length)));
      cursor = next;
    } while (cursor !== '0');
    expect(new Set(ids).size).toBe(20_000);

    let cancelled = 0;
    for (let i = 0; i < ids.length; i += 1000) cancelled += await queue.cancel(ids.slice(i, i + 1000));
    expect(cancelled).toBe(20_000);
    // Retention keeps the newest 10,000 cancelled jobs (DEFAULT_RETENTION): the rest are gone.
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, cancelled: 10_000 });
    expect(await listed('mixed')).toEqual([]);
  });
});
