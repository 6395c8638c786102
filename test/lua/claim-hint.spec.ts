import { Queue, type RedisStore } from '../../lib/index.js';
import { testStore } from '../helpers/store.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';

/**
 * A woken worker's claim spends the wake-hint budget in the same script
 * (claim ARGV[7] = '1'): it claims only the slots granted, and a short grant
 * leaves the idle marker set so the next add wakes it again.
 */
describe('claim with the wake-hint budget (hinted)', () => {
  let store: RedisStore;
  let queue: Queue<number>;
  const send = (args: string[]) => commandOf(store, 'test').sendCommand(args);
  const hinted = (count: number) => store.claim('hint', { count, workerId: 'w', lockMs: 10_000, woken: true }).then((o) => o.jobs);

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue<number>('hint', { store });
    await queue.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: `j${i}`, data: i })));
    await send(['DEL', keysOf(store, 'hint').idle]);
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('claims only the granted slots and spends them', async () => {
    await send(['SET', keysOf(store, 'hint').hint, '2']);
    const jobs = await hinted(4);
    expect(jobs.map((j) => j.name)).toEqual(['j0', 'j1']);
    expect(await send(['GET', keysOf(store, 'hint').hint])).toBe('0');
    // Granted less than asked: this worker stays idle, so the next add must announce.
    expect(await send(['EXISTS', keysOf(store, 'hint').idle])).toBe(1);
    expect(await queue.getCounts()).toMatchObject({ waiting: 3, active: 2 });
  });

  it('an empty budget claims nothing and changes nothing but the idle marker', async () => {
    await send(['SET', keysOf(store, 'hint').hint, '0']);
    expect(await hinted(3)).toEqual([]);
    expect(await send(['GET', keysOf(store, 'hint').hint])).toBe('0');
    expect(await send(['EXISTS', keysOf(store, 'hint').idle])).toBe(1);
    expect(await queue.getCounts()).toMatchObject({ waiting: 5, active: 0 });
  });

  it('a missing budget (expired or never set) grants every slot asked', async () => {
    const jobs = await hinted(3);
    expect(jobs.map((j) => j.name)).toEqual(['j0', 'j1', 'j2']);
    expect(await send(['EXISTS', keysOf(store, 'hint').hint])).toBe(0);
  });

  it('a claim without the flag ignores the budget', async () => {
    await send(['SET', keysOf(store, 'hint').hint, '1']);
    const jobs = await store.claim('hint', { count: 3, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs);
    expect(jobs).toHaveLength(3);
    expect(await send(['GET', keysOf(store, 'hint').hint])).toBe('1');
  });

  // j0 may be taken; j1..j4 have no room (a worker capping those names): popped, stepped over, put back.
  const onlyJ0 = (count: number) =>
    store
      .claim('hint', { count, workerId: 'w', lockMs: 10_000, woken: true, nameRoom: ['j1', 'j2', 'j3', 'j4'].map((n) => [n, 0] as const) })
      .then((o) => o.jobs);

  it('gives back to the budget the slots it was granted for jobs it may not take', async () => {
    await send(['SET', keysOf(store, 'hint').hint, '3', 'PX', '60000']);
    const jobs = await onlyJ0(3);
    expect(jobs.map((j) => j.name)).toEqual(['j0']);
    // 3 granted, 1 taken, 4 stepped over: 2 slots back for another woken worker; the TTL stays.
    expect(await send(['GET', keysOf(store, 'hint').hint])).toBe('2');
    expect(Number(await send(['PTTL', keysOf(store, 'hint').hint]))).toBeGreaterThan(0);
    expect(await queue.getCounts()).toMatchObject({ waiting: 4, active: 1 });
  });

  it('a missing budget is not recreated by the give-back (it would never expire)', async () => {
    const jobs = await onlyJ0(3);
    expect(jobs.map((j) => j.name)).toEqual(['j0']);
    expect(await send(['EXISTS', keysOf(store, 'hint').hint])).toBe(0);
    expect(await queue.getCounts()).toMatchObject({ waiting: 4, active: 1 });
  });
});
