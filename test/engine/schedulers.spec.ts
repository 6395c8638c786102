import { InvalidArgumentError, type Job, type Queue } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { redisOnly } from '../helpers/store-kind.js';

/** Tick time of a tick job id `<scheduler id>:<ms>`. */
const tickOf = (id: string) => Number(id.slice(id.lastIndexOf(':') + 1));

async function delayedIds(queue: Queue<unknown, unknown>): Promise<string[]> {
  return (await queue.getJobs('delayed')).map((j) => j.id);
}

describe('schedulers (engine)', () => {
  const h = engineHarness({ pollInterval: 60_000 });

  it('keeps one pending tick job, id <scheduler>:<tick ms>, on the every-N grid', async () => {
    const queue = h.queue('grid');
    const result = await queue.upsertScheduler('beat', { every: 60_000 }, { name: 'beat', data: { n: 1 } });
    expect(result.changed).toBe(true);
    expect(result.next! % 60_000).toBe(0);
    expect(await delayedIds(queue)).toEqual([`beat:${result.next}`]);
    const job = await queue.getJob(`beat:${result.next}`);
    expect(job).toMatchObject({ name: 'beat', data: { n: 1 }, state: 'delayed', runAt: result.next });
    const info = await queue.getScheduler('beat');
    expect(info).toMatchObject({ id: 'beat', repeat: { every: 60_000, missed: 'once' }, job: { name: 'beat', data: { n: 1 } }, next: result.next, count: 0 });
    expect(await queue.getSchedulers()).toHaveLength(1);
  });

  it('runs each tick once, one after the other, and counts them', async () => {
    const queue = h.queue('ticks');
    const ran: string[] = [];
    h.worker('ticks', async (job: Job) => void ran.push(job.id));
    await queue.upsertScheduler('t', { every: 150, missed: 'all' }, { name: 'tick' }); // 'all': a late promotion under load still runs every tick
    await waitFor(() => ran.length >= 5, { timeout: 5000, message: '5 ticks' });
    const ticks = ran.map(tickOf).sort((a, b) => a - b); // a catch-up after a late promotion may run out of order
    for (let i = 1; i < ticks.length; i += 1) expect(ticks[i]! - ticks[i - 1]!).toBe(150);
    expect(new Set(ran).size).toBe(ran.length);
    expect((await queue.getScheduler('t'))!.count).toBeGreaterThanOrEqual(5);
  });

  it('makes one scheduler and one pending tick when many callers upsert the same definition at once', async () => {
    const queue = h.queue('race');
    const results = await Promise.all(
      Array.from({ length: 20 }, () => queue.upsertScheduler('daily', { cron: '0 8 * * *', tz: 'Europe/Paris' }, { name: 'digest', data: { to: 'all' } })),
    );
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    expect(new Set(results.map((r) => r.next)).size).toBe(1);
    expect(await delayedIds(queue)).toEqual([`daily:${results[0]!.next}`]);
  });

  it('replaces the pending tick when the pattern changes, never doubling it', async () => {
    const queue = h.queue('replace');
    const first = await queue.upsertScheduler('r', { every: 3_600_000 }, { name: 'a' });
    // Ticks 30 s past each minute: never the hourly tick (at 5 to the hour both would be the hour).
    const second = await queue.upsertScheduler('r', { every: 60_000, startAt: 30_000 }, { name: 'b', data: 2 });
    expect(second.changed).toBe(true);
    expect(second.next).not.toBe(first.next);
    expect(await delayedIds(queue)).toEqual([`r:${second.next}`]);
    expect(await queue.getJob(`r:${first.next}`)).toBeNull();
    expect((await queue.getJob(`r:${second.next}`))!.name).toBe('b');
    const info = await queue.getScheduler('r');
    expect(info).toMatchObject({ repeat: { every: 60_000 }, job: { name: 'b', data: 2 }, next: second.next });
  });

  it('switches a running scheduler to a new pattern between two ticks', async () => {
    const queue = h.queue('switch');
    const ran: Job[] = [];
    h.worker('switch', async (job: Job) => void ran.push(job));
    await queue.upsertScheduler('s', { every: 100 }, { name: 'old' });
    await waitFor(() => ran.length >= 2, { message: 'two old ticks' });
    await queue.upsertScheduler('s', { every: 120 }, { name: 'new' });
    await waitFor(() => ran.filter((j) => j.name === 'new').length >= 3, { message: 'three new ticks' });
    const fresh = ran.filter((j) => j.name === 'new').map((j) => tickOf(j.id));
    for (const t of fresh) expect(t % 120).toBe(0);
    expect(new Set(ran.map((j) => j.id)).size).toBe(ran.length);
    // Every old tick that ran is older than every new one: the old pending tick was replaced, not run alongside.
    const lastOld = Math.max(...ran.filter((j) => j.name === 'old').map((j) => tickOf(j.id)));
    expect(Math.min(...fresh)).toBeGreaterThan(lastOld);
  });

  it('stops after removeScheduler: the pending tick goes, no tick runs later', async () => {
    const queue = h.queue('remove');
    const ran: string[] = [];
    h.worker('remove', async (job: Job) => void ran.push(job.name));
    await queue.upsertScheduler('x', { every: 100 }, { name: 'tick' });
    await waitFor(() => ran.length >= 2, { message: 'two ticks' });
    expect(await queue.removeScheduler('x')).toBe(true);
    expect(await queue.removeScheduler('x')).toBe(false);
    expect(await queue.getScheduler('x')).toBeNull();
    const before = ran.filter((n) => n === 'tick').length;
    // A sentinel due five tick periods later: once it ran, the promoter has passed every tick time since.
    await queue.add('sentinel', {}, { delay: 500 });
    await waitFor(() => ran.includes('sentinel'), { message: 'the sentinel' });
    expect(ran.filter((n) => n === 'tick').length).toBe(before);
    expect(await queue.getJobs('delayed')).toEqual([]);
  });

  it('ends after `limit` ticks and honours endAt', async () => {
    const queue = h.queue('limit');
    const ran: string[] = [];
    h.worker('limit', async (job: Job) => void ran.push(job.name));
    await queue.upsertScheduler('three', { every: 50, limit: 3 }, { name: 'l' });
    await waitFor(async () => (await queue.getScheduler('three'))!.next === null, { message: 'the limit' });
    expect((await queue.getScheduler('three'))!.count).toBe(3);
    await waitFor(() => ran.length === 3, { message: 'three jobs' });
    const end = Date.now() + 400;
    await queue.upsertScheduler('ends', { every: 100, endAt: end, missed: 'all' }, { name: 'e' });
    await waitFor(async () => (await queue.getScheduler('ends'))!.next === null, { message: 'endAt' });
    const jobs = (await queue.getJobs('completed')).filter((j) => j.name === 'e');
    expect(jobs.length).toBeGreaterThanOrEqual(3);
    for (const j of jobs) expect(tickOf(j.id)).toBeLessThanOrEqual(end);
  });

  it('starts at startAt and ticks with a cron pattern (seconds field)', async () => {
    const queue = h.queue('cron');
    const ran: string[] = [];
    h.worker('cron', async (job: Job) => void ran.push(job.id));
    await queue.upsertScheduler('sec', { cron: '* * * * * *', startAt: Date.now() + 1000, missed: 'all' }, { name: 'c' });
    await waitFor(() => ran.length >= 2, { message: 'two cron ticks' });
    const ticks = ran.map(tickOf);
    expect(ticks[0]! % 1000).toBe(0);
    expect(ticks[1]! - ticks[0]!).toBe(1000);
  });

  redisOnly('rewrites the scheduler\'s Redis hash to force the refill')('refills the list of cron times when it runs low', async () => {
    const queue = h.queue('refill');
    const ran: string[] = [];
    const result = await queue.upsertScheduler('sec', { cron: '* * * * * *', missed: 'all' }, { name: 'c' });
    const key = keysOf(h.store, 'refill').scheduler('sec');
    // Leave one listed time after the pending tick: the promotion of that tick must ask for more.
    await commandOf(h.store, 'test').sendCommand(['HSET', key, 'ts', String(result.next! + 1000)]);
    h.worker('refill', async (job: Job) => void ran.push(job.id));
    await waitFor(() => ran.length >= 3, { message: 'three ticks past the listed ones' });
    expect(ran.map(tickOf)).toEqual([result.next!, result.next! + 1000, result.next! + 2000]);
    expect((await queue.getScheduler('sec'))!.next).toBe(result.next! + 3000);
    // A refill racing another appends nothing twice.
    const listed = (await h.store.schedulers.get('refill', 'sec'))!.times;
    expect(listed.length).toBeGreaterThan(20);
    const spec = (await h.store.schedulers.get('refill', 'sec'))!.spec;
    expect(await h.store.schedulers.refill('refill', 'sec', spec, listed)).toBe(0);
    expect(await h.store.schedulers.refill('refill', 'sec', '{}', listed)).toBe(-1);
  });

  it('refuses bad definitions with errors naming the field, and stores nothing', async () => {
    const queue = h.queue('bad');
    const cases: [unknown, unknown, string][] = [
      [{}, { name: 'j' }, 'repeat.cron'],
      [{ cron: '* * * * *', every: 1000 }, { name: 'j' }, 'repeat.cron'],
      [{ cron: '61 * * * *' }, { name: 'j' }, 'repeat.cron'],
      [{ cron: 'often' }, { name: 'j' }, 'repeat.cron'],
      [{ cron: '0 8 * * *', tz: 'Mars/Olympus' }, { name: 'j' }, 'repeat.tz'],
      [{ every: 0 }, { name: 'j' }, 'repeat.every'],
      [{ every: 1000, limit: 0 }, { name: 'j' }, 'repeat.limit'],
      [{ every: 1000, missed: 'later' }, { name: 'j' }, 'repeat.missed'],
      [{ every: 1000, startAt: 10, endAt: 5 }, { name: 'j' }, 'repeat.endAt'],
      [{ every: 1000, evry: 1 }, { name: 'j' }, 'repeat.evry'],
      [{ every: 1000 }, { name: '' }, 'job.name'],
      [{ every: 1000 }, { name: 'j', opts: { jobId: 'x' } }, 'job.opts.jobId'],
      [{ every: 1000 }, { name: 'j', opts: { delay: 5 } }, 'job.opts.delay'],
      [{ every: 1000 }, { name: 'j', opts: { priority: -1 } }, 'job.opts.priority'],
    ];
    for (const [repeat, job, field] of cases) {
      const call = queue.upsertScheduler('bad', repeat as never, job as never);
      await expect(call).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(queue.upsertScheduler('bad', repeat as never, job as never)).rejects.toMatchObject({ field });
    }
    await expect(queue.upsertScheduler('', { every: 1000 }, { name: 'j' })).rejects.toMatchObject({ field: 'scheduler id' });
    expect(await queue.getSchedulers()).toEqual([]);
    expect(await queue.getJobs('delayed')).toEqual([]);
  });
});
