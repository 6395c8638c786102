import { Queue, Worker } from '../../lib/index.js';
import { MemoryStore } from '../../lib/testing/index.js';
import { waitFor } from '../helpers/wait-for.js';

/** The manual clock: delays, backoff, leases and timeouts of minutes, tested in milliseconds. */
describe('MemoryStore clock', () => {
  let store: MemoryStore;
  const workers: Worker[] = [];
  beforeEach(() => {
    store = new MemoryStore({ clock: 'manual' });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close({ timeout: 100 })));
    await store.disconnect();
  });
  const worker = (name: string, handler: ConstructorParameters<typeof Worker>[1], options = {}) => {
    const w = new Worker(name, handler, { store, ...options });
    workers.push(w);
    return w;
  };

  it('time stands still until advance(); a one-hour delay runs when the clock passes it', async () => {
    const queue = new Queue('later', { store });
    const ran: number[] = [];
    worker('later', async () => void ran.push(store.clock.now()));
    const start = store.clock.now();
    const job = await queue.add('remind', {}, { delay: 3_600_000 });
    await store.clock.advance(3_599_000);
    expect((await queue.getJob(job.id))?.state).toBe('delayed');
    await store.clock.advance(1_000);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(ran[0]! - start).toBe(3_600_000);
  });

  it('exponential backoff of minutes is walked through by advance()', async () => {
    const queue = new Queue('backoff', { store });
    const starts: number[] = [];
    worker('backoff', async () => {
      starts.push(store.clock.now());
      throw new Error('down');
    });
    const job = await queue.add('x', {}, { attempts: 3, backoff: { type: 'fixed', delay: 60_000 } });
    await waitFor(() => starts.length === 1);
    await store.clock.advance(60_000);
    await waitFor(() => starts.length === 2);
    await store.clock.advance(60_000);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'failed');
    expect(starts.map((t) => t - starts[0]!)).toEqual([0, 60_000, 120_000]);
  });

  it('a running job keeps its lease across a long advance (renewals fire on the way); a dead holder loses it', async () => {
    const queue = new Queue('lease', { store });
    let release!: () => void;
    worker('lease', () => new Promise<void>((r) => (release = r)), { lockDuration: 30_000 });
    const job = await queue.add('x', {});
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'active');
    await store.clock.advance(300_000);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'active', stalled: 0 });
    release();
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');

    const orphans = new Queue('orphans', { store });
    const dead = await orphans.add('y', {});
    await store.claim('orphans', { count: 1, workerId: 'gone', lockMs: 30_000 });
    await store.clock.advance(29_000);
    expect(await store.reap('orphans', 1, 10)).toEqual([]);
    await store.clock.advance(2_000);
    expect(await store.reap('orphans', 1, 10)).toEqual([{ id: dead.id, state: 'waiting' }]);
    worker('orphans', async () => 'rescued');
    await waitFor(async () => (await orphans.getJob(dead.id))?.state === 'completed');
  });

  it('a timeout of ten minutes fires when the clock passes it', async () => {
    const queue = new Queue('slow', { store });
    worker('slow', () => new Promise(() => undefined));
    const job = await queue.add('x', {}, { timeout: 600_000 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'active');
    await store.clock.advance(600_000);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'failed');
    expect((await queue.getJob(job.id))?.error?.code).toBe('JobTimeoutError');
  });

  it('a real clock jumps ahead too, and bad input names the field', async () => {
    const real = new MemoryStore();
    const before = real.clock.now();
    await real.clock.advance(10_000);
    expect(real.clock.now() - before).toBeGreaterThanOrEqual(10_000);
    await expect(real.clock.advance(-1)).rejects.toMatchObject({ name: 'InvalidArgumentError' });
    expect(() => new MemoryStore({ clock: 'fast' as 'real' })).toThrow(/MemoryStore options.clock/);
    expect(() => new MemoryStore({ speed: 1 } as never)).toThrow(/speed/);
    await real.disconnect();
    await expect(real.getJob('q', 'x')).rejects.toMatchObject({ name: 'StoreNotConnectedError' });
  });
});

/** Schedulers on the manual clock: a day of ticks in milliseconds, and the missed policies after a gap with no worker. */
describe('MemoryStore clock: schedulers', () => {
  let store: MemoryStore;
  const workers: Worker[] = [];
  beforeEach(() => {
    store = new MemoryStore({ clock: 'manual' });
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close({ timeout: 100 })));
    await store.disconnect();
  });

  it('an hourly cron runs 24 times when the clock advances a day, each on the hour', async () => {
    const queue = new Queue('hourly', { store });
    const ran: number[] = [];
    workers.push(new Worker<unknown, unknown>('hourly', async () => void ran.push(store.clock.now()), { store }));
    const { next } = await queue.upsertScheduler('digest', { cron: '0 * * * *' }, { name: 'digest' });
    await store.clock.advance(86_400_000);
    await waitFor(() => ran.length === 24, { message: `24 ticks, got ${ran.length}` });
    expect(ran[0]).toBe(next);
    expect(ran.every((t) => t % 3_600_000 === 0)).toBe(true);
    expect((await queue.getScheduler('digest'))!.count).toBe(24);
  });

  it.each([
    ['skip', 0, 6],
    ['once', 1, 5],
    ['all', 6, 0],
  ] as const)("missed '%s' after 5.5 idle hours: %i tick(s) run, %i skipped", async (missed, runs, skipped) => {
    const queue = new Queue(`missed-${missed}`, { store });
    const start = store.clock.now();
    const { next } = await queue.upsertScheduler('h', { every: 3_600_000, missed }, { name: 'h' });
    await store.clock.advance(next! - start + 5.5 * 3_600_000);
    const ran: string[] = [];
    workers.push(new Worker<unknown, unknown>(queue.name, async (job) => void ran.push(job.id), { store, concurrency: 1 }));
    await store.clock.advance(0);
    await waitFor(async () => ran.length === runs && (await queue.getCounts()).waiting === 0, { message: `${runs} runs` });
    expect(ran).toEqual(Array.from({ length: runs }, (_, k) => `h:${next! + k * 3_600_000}`));
    expect(await queue.getScheduler('h')).toMatchObject({ count: runs, skipped, next: next! + 6 * 3_600_000 });
  });
});
