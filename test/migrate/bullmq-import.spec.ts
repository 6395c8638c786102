import { importFromBullMQ, Queue, Worker, type ImportReport, type Job } from '../../lib/index.js';
import type { RedisStore } from '../../lib/index.js';
import { redisUrl, testStore, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { BULLMQ, connectionOf, makeBullJobs, type Made } from './bullmq-fixture.js';

const DAY = 24 * 3600_000;
const QUEUES = ['orders', 'emails', 'held'];

describe.each(BULLMQ)('importFromBullMQ from $label', ({ lib, legacy }) => {
  let store: RedisStore;
  let bullPrefix: string;
  let made: Made;
  let closeBull: () => Promise<void>;
  let report: ImportReport;
  const workers: Worker[] = [];

  beforeAll(async () => {
    bullPrefix = uniquePrefix('bull');
    ({ made, close: closeBull } = await makeBullJobs(lib, redisUrl(), bullPrefix, legacy));
    store = await testStore();
    report = await importFromBullMQ({ from: redisUrl(), queue: QUEUES, bullPrefix, store });
  }, 60_000);

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close({ timeout: 2000 })));
    await closeBull();
    await store.disconnect();
  });

  const queue = (name: string) => new Queue(name, { store });
  const tally = (q: string, state: string) => report.queues.find((r) => r.queue === q)!.states[state as 'wait'];

  it('counts what it found, imported and skipped, per state', () => {
    expect(tally('orders', 'wait')).toMatchObject({ found: 3, imported: 3 });
    // order-4, and the hourly scheduler's first tick (its template has a priority), due at once.
    expect(tally('orders', 'prioritized')).toMatchObject({ found: 2, imported: 2 });
    expect(tally('orders', 'failed')).toMatchObject({ found: 1, imported: 1 });
    expect(tally('orders', 'waiting-children')).toMatchObject({ found: 1, imported: 1 });
    expect(tally('emails', 'wait')).toMatchObject({ found: 2, imported: 2 });
    // The schedulers' pending ticks come with their schedulers, not as jobs (the hourly one is due at once: a job).
    const ticks = legacy ? 2 : 1;
    expect(tally('orders', 'delayed')).toMatchObject({ found: 1 + ticks, imported: 1, skipped: { 'scheduler tick: its scheduler adds it in Spool': ticks } });
    expect(tally('orders', 'schedulers')).toMatchObject({ found: ticks + 1, imported: ticks + 1 });
    expect(tally('orders', 'active')).toMatchObject({ found: 1, skipped: { "active: BullMQ's workers finish it": 1 } });
    expect(report.notes).toEqual(expect.arrayContaining([expect.objectContaining({ bullId: made.activeId, outcome: 'skipped', state: 'active' })]));
  });

  it('keeps name, data, attempts, backoff, retention and custom ids; numbers BullMQ gave become bullmq:<id>', async () => {
    const orders = queue('orders');
    const one = (await orders.getJob('order-1'))!;
    expect(one).toMatchObject({ name: 'charge', data: { order: 1 }, state: 'waiting', attempt: 0, maxAttempts: 3 });
    expect(one.opts.backoff).toEqual({ type: 'exponential', delay: 1000 });
    expect((await orders.getJob(`bullmq:${made.autoId}`))!.data).toEqual({ order: 3 });
    expect((await orders.getJob('order-4'))!.priority).toBe(5);
    expect((await orders.getJob('order-5'))!.opts.lifo).toBe(true);
  });

  it('keeps a delayed job due when it was due (next month)', async () => {
    const remind = (await queue('orders').getJob('remind-6'))!;
    expect(remind.state).toBe('delayed');
    expect(remind.runAt).toBe(made.dueAt);
    expect(remind.runAt! - Date.now()).toBeGreaterThan(29 * DAY);
  });

  it('keeps a dead letter with its reason, message, stack and attempts', async () => {
    const dead = (await queue('orders').getJob(made.deadId))!;
    expect(dead).toMatchObject({ state: 'failed', attempt: 2, maxAttempts: 2 });
    expect(dead.error).toMatchObject({ reason: 'error', message: 'card declined', code: 'TypeError' });
    expect(dead.error!.stack).toContain('TypeError: card declined');
    expect((await queue('orders').getFailed({ reason: 'error' })).jobs.map((j) => j.id)).toEqual([made.deadId]);
  });

  it('carries job schedulers (every, cron with its time zone) and their next run', async () => {
    const orders = queue('orders');
    const hourly = (await orders.getScheduler('hourly'))!;
    expect(hourly.repeat).toMatchObject({ every: 3600_000, missed: 'skip' });
    expect(hourly.job).toMatchObject({ name: 'sweep', data: { deep: false }, opts: { priority: 2 } });
    // Its first run in BullMQ was due at once (a job in wait, imported as one): Spool's next is an hour on.
    expect(hourly.next! - Date.now()).toBeGreaterThan(3500_000);
    const nightly = (await orders.getScheduler('nightly'))!;
    expect(nightly.repeat).toMatchObject({ cron: '0 3 * * *', tz: 'Europe/Paris' });
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit' }).format(nightly.next!)).toBe('03:00');
    const schedulers = await orders.getSchedulers();
    expect(schedulers.map((s) => s.id).sort()).toEqual(legacy ? ['hourly', 'nightly', expect.stringMatching(/^repeat:/)] : ['hourly', 'nightly']);
    if (legacy) {
      const old = schedulers.find((s) => s.id.startsWith('repeat:'))!;
      expect(old.repeat).toMatchObject({ every: 7200_000, limit: 5 });
      expect(old.job).toMatchObject({ name: 'legacy', data: { l: 1 } });
    }
  });

  it('keeps a paused queue paused', async () => {
    expect(await queue('held').isPaused()).toBe(true);
    expect(await queue('orders').isPaused()).toBe(false);
    expect((await queue('held').getJob('later-1'))!.state).toBe('waiting');
  });

  it('runs the jobs with Spool workers: BullMQ order (lifo first, priority after the rest), flows with their parents last', async () => {
    const order: string[] = [];
    workers.push(new Worker('orders', async (job: Job) => void order.push(job.id), { store, concurrency: 1, claimBatch: 1 }) as unknown as Worker);
    const emails: string[] = [];
    workers.push(new Worker('emails', async (job: Job) => {
      emails.push(job.id);
      return `sent ${(job.data as { to: string }).to}`;
    }, { store }) as unknown as Worker);
    await waitFor(() => order.includes('bundle-7'), { message: 'the flow parent ran after its children' });
    expect(emails.sort()).toEqual(['mail-a', 'mail-b']);
    // BullMQ takes its wait list from the right: the lifo job (pushed right), then the others oldest first.
    expect(order.slice(0, 3)).toEqual(['order-5', 'order-1', `bullmq:${made.autoId}`]);
    expect(order.indexOf('order-4')).toBeGreaterThan(order.indexOf('order-1'));
    const parent = (await queue('orders').getJob('bundle-7'))!;
    expect(await parent.getChildrenResults()).toEqual({ 'emails:mail-a': 'sent a', 'emails:mail-b': 'sent b' });
    expect(await queue('orders').verify()).toEqual([]);
  });

  it('imports nothing twice when run again', async () => {
    const again = await importFromBullMQ({ from: redisUrl(), queue: QUEUES, bullPrefix, store });
    for (const q of again.queues) {
      for (const [state, t] of Object.entries(q.states)) {
        if (state !== 'active') expect({ state, imported: t!.imported }).toEqual({ state, imported: 0 });
      }
    }
    expect(again.queues[0]!.states.wait).toMatchObject({ found: 3, existing: 3 });
  });

  it('--dry-run writes nothing, and BullMQ keeps every job', async () => {
    const empty = await testStore();
    try {
      const dry = await importFromBullMQ({ from: redisUrl(), queue: QUEUES, bullPrefix, store: empty, dryRun: true });
      expect(dry.queues[0]!.states.wait).toMatchObject({ found: 3, imported: 3 });
      expect(await empty.listQueues()).toEqual([]);
      const bull = new lib.Queue('orders', { connection: connectionOf(redisUrl()), prefix: bullPrefix });
      expect(await bull.getJobCounts('wait', 'delayed', 'failed')).toMatchObject({ wait: 3, failed: 1 });
      await bull.close();
    } finally {
      await empty.disconnect();
    }
  });
});
