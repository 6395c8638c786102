import { createClient } from 'redis';
import { importFromBullMQ, Queue, Worker, type ImportProgress, type ImportReport, type Job } from '../../lib/index.js';
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
  let bullBefore: Record<string, string>;
  let bullAfter: Record<string, string>;
  const workers: Worker[] = [];

  beforeAll(async () => {
    bullPrefix = uniquePrefix('bull');
    ({ made, close: closeBull } = await makeBullJobs(lib, redisUrl(), bullPrefix, legacy));
    store = await testStore();
    bullBefore = await bullKeys(bullPrefix);
    report = await importFromBullMQ({ from: redisUrl(), queue: QUEUES, bullPrefix, store });
    bullAfter = await bullKeys(bullPrefix);
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
    // removeOnComplete: 100 is the job's retention spec "count,ageMs" (lua/includes/retention); without one
    // the job keeps every finished job as BullMQ does ('-1,-1'), not Spool's default retention.
    expect(await rawField(`{${store.prefix}:orders}:job:order-1`, 'rc')).toBe('100,-1');
    expect(await rawField(`{${store.prefix}:orders}:job:order-4`, 'rc')).toBe('-1,-1');
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
    // Its limit and endDate: no tick ran in BullMQ yet, so all 40 runs are left.
    expect(nightly.repeat).toMatchObject({ cron: '0 3 * * *', tz: 'Europe/Paris', limit: 40, endAt: made.endDate });
    expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit' }).format(nightly.next!)).toBe('03:00');
    const schedulers = await orders.getSchedulers();
    expect(schedulers.map((s) => s.id).sort()).toEqual(legacy ? ['hourly', 'nightly', expect.stringMatching(/^repeat:/)] : ['hourly', 'nightly']);
    if (legacy) {
      const old = schedulers.find((s) => s.id.startsWith('repeat:'))!;
      expect(old.repeat).toMatchObject({ every: 7200_000, limit: 5 });
      expect(old.job).toMatchObject({ name: 'legacy', data: { l: 1 } });
    }
  });

  it('lists per job what does not carry over (options, log lines) and what it skipped', async () => {
    const later2 = report.notes.find((n) => n.bullId === 'later-2')!;
    expect(later2).toMatchObject({ queue: 'held', outcome: 'imported', spoolId: 'later-2' });
    expect([...later2.notCarried].sort()).toEqual(['1 log line(s) not carried', 'option keepLogs not carried', 'option sizeLimit not carried']);
    expect((await queue('held').getJob('later-2'))!.data).toEqual({ x: 2 });
    expect(report.notes.find((n) => n.bullId === made.activeId)).toMatchObject({ queue: 'orders', state: 'active', outcome: 'skipped', reason: "active: BullMQ's workers finish it" });
    expect(report.notes.find((n) => n.bullId === 'order-1')).toBeUndefined();
  });

  it("only reads BullMQ's keys: every key under its prefix is as it was", () => {
    expect(Object.keys(bullBefore).length).toBeGreaterThan(20);
    expect(bullAfter).toEqual(bullBefore);
  });

  it('takes only the states asked for: completed jobs with their results when asked, and reports progress per page', async () => {
    const done = new lib.Queue('done', { connection: connectionOf(redisUrl()), prefix: bullPrefix });
    const worker = new lib.Worker('done', async (job) => ({ doubled: (job.data as { n: number }).n * 2 }), { connection: connectionOf(redisUrl()), prefix: bullPrefix });
    const stores = [await testStore(), await testStore()];
    try {
      await done.addBulk([1, 2].map((n) => ({ name: 'double', data: { n }, opts: { jobId: `d-${n}` } })));
      await waitFor(async () => (await done.getCompletedCount()) === 2, { message: 'BullMQ completed two jobs' });
      await worker.close();
      await done.add('double', { n: 3 }, { jobId: 'd-3' });

      // By default completed jobs are history: left in BullMQ.
      const plain = await importFromBullMQ({ from: redisUrl(), queue: 'done', bullPrefix, store: stores[0]! });
      expect(plain.queues[0]!.states.completed).toBeUndefined();
      expect(plain.queues[0]!.states.wait).toMatchObject({ found: 1, imported: 1 });
      expect(await stores[0]!.getJob('done', 'd-1')).toBeNull();

      const progress: ImportProgress[] = [];
      const only = await importFromBullMQ({ from: redisUrl(), queue: 'done', bullPrefix, store: stores[1]!, states: ['completed'], batchSize: 1, onProgress: (p) => progress.push(p) });
      expect(Object.keys(only.queues[0]!.states)).toEqual(['completed']);
      expect(only.queues[0]!.states.completed).toMatchObject({ found: 2, imported: 2 });
      const spool = new Queue('done', { store: stores[1]! });
      expect(await spool.getJob('d-1')).toMatchObject({ state: 'completed', result: { doubled: 2 } });
      expect(await spool.getJob('d-2')).toMatchObject({ state: 'completed', result: { doubled: 4 } });
      expect(await spool.getJob('d-3')).toBeNull();
      expect(progress).toEqual([
        { queue: 'done', state: 'completed', done: 1, total: 2 },
        { queue: 'done', state: 'completed', done: 2, total: 2 },
      ]);
    } finally {
      await worker.close();
      await done.close();
      await Promise.all(stores.map((s) => s.disconnect()));
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

async function rawField(key: string, field: string): Promise<string | null> {
  const client = createClient({ url: redisUrl() });
  await client.connect();
  try {
    return await client.hGet(key, field);
  } finally {
    await client.close();
  }
}

/** Every key under BullMQ's prefix with its type and content (TTLs aside): to show an import leaves them as they were. */
async function bullKeys(bullPrefix: string): Promise<Record<string, string>> {
  const client = createClient({ url: redisUrl(), RESP: 2 });
  await client.connect();
  try {
    const out: Record<string, string> = {};
    for await (const keys of client.scanIterator({ MATCH: `${bullPrefix}:*`, COUNT: 1000 })) {
      for (const key of keys) {
        const type = String(await client.sendCommand(['TYPE', key]));
        const read: Record<string, string[]> = {
          string: ['GET', key], hash: ['HGETALL', key], list: ['LRANGE', key, '0', '-1'], set: ['SMEMBERS', key],
          zset: ['ZRANGE', key, '0', '-1', 'WITHSCORES'], stream: ['XRANGE', key, '-', '+'],
        };
        const reply = read[type] ? await client.sendCommand(read[type]!) : null;
        // SMEMBERS and HGETALL answer in no set order.
        const content = Array.isArray(reply) && (type === 'set' || type === 'hash') ? pairsSorted(reply as string[], type === 'hash') : reply;
        out[key] = `${type} ${JSON.stringify(content)}`;
      }
    }
    return out;
  } finally {
    await client.close();
  }
}

function pairsSorted(reply: string[], pairs: boolean): string[] {
  if (!pairs) return [...reply].sort();
  const entries: string[] = [];
  for (let i = 0; i + 1 < reply.length; i += 2) entries.push(`${reply[i]}=${reply[i + 1]}`);
  return entries.sort();
}
