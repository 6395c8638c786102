import { ID_BASE, JobIds, NUMBERED_ID, RENUMBER_MARGIN } from '../../lib/engine/ids.js';
import { LUA_SOURCES } from '../../lib/store/lua-sources.js';
import { ReplyShapeError } from '../../lib/store/errors.js';

/**
 * The block logic of JobIds against a counter held here (what the counter
 * is in Redis, HINCRBY on the queue's meta hash, is tested with a real
 * server in test/engine/job-ids.spec.ts).
 */
function counter(): { reserve: (count: number) => Promise<number>; draws: number[] } {
  let value = 0;
  const draws: number[] = [];
  return {
    draws,
    reserve: (count) => {
      draws.push(count);
      value += count;
      return Promise.resolve(value);
    },
  };
}

/** The id of the counter's n-th number. */
const nth = (n: number): string => String(ID_BASE + n);
const takeMany = (ids: JobIds, n: number): Promise<string[]> => Promise.all(Array.from({ length: n }, () => ids.take()));

describe('JobIds', () => {
  it('hands out the counter\'s numbers in order, as ten-digit decimal strings', async () => {
    const c = counter();
    const ids = new JobIds(c.reserve);
    expect(await ids.take()).toBe('1000000001');
    expect(await takeMany(ids, 3)).toEqual([nth(2), nth(3), nth(4)]);
    expect(c.draws).toEqual([16]);
  });

  it('gives the jobs of one turn (a bulk) one draw of their number', async () => {
    const c = counter();
    const ids = new JobIds(c.reserve);
    const bulk = await takeMany(ids, 1000);
    expect(bulk).toEqual(Array.from({ length: 1000 }, (_, i) => nth(i + 1)));
    // One draw for the bulk; the block it emptied is followed by the next one, drawn ahead.
    expect(c.draws).toEqual([1000, 32]);
  });

  it('draws the next block while a quarter of the current one is left, so a steady producer takes every id at once', async () => {
    const c = counter();
    const ids = new JobIds(c.reserve);
    await ids.take(); // the first block: the only wait
    const taken: string[] = [];
    for (let i = 0; i < 300; i++) {
      const id = ids.take();
      if (typeof id !== 'string') throw new Error(`take ${i + 2} waited for a draw`);
      taken.push(id);
      // An add's turn: the draw started by a low block lands in between.
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(taken).toEqual(Array.from({ length: 300 }, (_, i) => nth(i + 2)));
    // Blocks double from 16.
    expect(c.draws.slice(0, 4)).toEqual([16, 32, 64, 128]);
  });

  it('keeps ids unique across producers sharing one counter', async () => {
    const c = counter();
    const producers = [new JobIds(c.reserve), new JobIds(c.reserve), new JobIds(c.reserve)];
    const all = (await Promise.all(producers.map((p) => takeMany(p, 700)))).flat();
    expect(new Set(all).size).toBe(2100);
  });

  it('fails the takes that wait when the counter cannot be reached, and draws again on the next', async () => {
    let fail = true;
    const ids = new JobIds(async (count) => {
      if (fail) throw new Error('connection lost');
      return count;
    });
    await expect(takeMany(ids, 3)).rejects.toThrow('connection lost');
    fail = false;
    expect(await ids.take()).toBe(nth(1));
  });

  it('lets a job with its own id wait its turn behind jobs waiting for ids, so a turn\'s adds stay in call order', async () => {
    const c = counter();
    const ids = new JobIds(c.reserve);
    const order: string[] = [];
    // Before the first block even a job with its own id waits: the turn may hold jobs without one.
    const first = ids.inTurn();
    expect(first).toBeInstanceOf(Promise);
    const calls = [first!.then(() => order.push('custom a')), Promise.resolve(ids.take()).then((id) => order.push(id)), ids.inTurn()!.then(() => order.push('custom b'))];
    await Promise.all(calls);
    expect(order).toEqual(['custom a', nth(1), 'custom b']);
    expect(c.draws).toEqual([16]);
    // With ids in hand nothing waits.
    expect(ids.inTurn()).toBeUndefined();
  });

  it('keeps string order equal to number order over the first nine billion ids (Redis orders equal scores by member)', () => {
    const sample = [1, 9, 10, 99, 100, 123_456, 8_999_999_999].map(nth);
    expect([...sample].sort()).toEqual(sample);
  });

  it('agrees with the scripts on the base, the renumbering margin and the form of a numbered id (lua/includes/ids)', () => {
    const lua = LUA_SOURCES['includes/ids']!;
    expect(Number(/SPOOL_ID_BASE = (\d+)/.exec(lua)![1])).toBe(ID_BASE);
    const [, a, b] = /SPOOL_ID_MARGIN = (\d+) \* (\d+)/.exec(lua)!;
    expect(Number(a) * Number(b)).toBe(RENUMBER_MARGIN);
    expect(lua).toContain("id == '0' or string.find(id, '^[1-9]%d*$')");
    for (const id of ['0', '7', '1000000001']) expect(NUMBERED_ID.test(id)).toBe(true);
    for (const id of ['007', '-1', '1.5', '1e9', 'a1', '']) expect(NUMBERED_ID.test(id)).toBe(false);
  });

  it('refuses a counter value that cannot hold the ids it was asked for', async () => {
    const ids = new JobIds(() => Promise.resolve(3));
    await expect(ids.take()).rejects.toBeInstanceOf(ReplyShapeError);
  });
});
