import { Queue, Worker, type RedisStore } from '../../lib/index.js';
import { redisUrl, silentLogger, testStore, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { cliEnv, expectCleanError, runCli } from './cli.js';

/** spool schedulers, metrics and workers (across queues): the built bin against real Redis, one prefix for the file. */
describe('spool schedulers / metrics / workers', () => {
  let store: RedisStore;
  let env: NodeJS.ProcessEnv;
  const workers: { close(): Promise<unknown> }[] = [];

  beforeAll(async () => {
    const prefix = uniquePrefix('cli-ops');
    store = await testStore(redisUrl(), prefix);
    env = cliEnv(prefix);
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await store.disconnect();
  });

  it('schedulers: lists them, runs one now, removes one; refuses without --yes off a terminal', async () => {
    const reports = new Queue('reports', { store });
    const { next } = await reports.upsertScheduler('digest', { cron: '0 8 * * *', tz: 'Europe/Paris' }, { name: 'digest', data: { to: 'ops' } });
    await reports.upsertScheduler('beat', { every: 300_000, limit: 10 }, { name: 'beat' });
    const list = await runCli(['schedulers', 'reports'], env);
    expect(list.code).toBe(0);
    const digestRow = list.stdout.split('\n').find((l) => l.includes('digest'))!;
    expect(digestRow).toContain('cron 0 8 * * * (Europe/Paris)');
    expect(digestRow).toMatch(/in \d+h|in \d+m/);
    expect(list.stdout.split('\n').find((l) => l.includes('beat'))).toMatch(/every 5m.*0\/10 ticks/);
    const json = JSON.parse((await runCli(['schedulers', 'reports', '--json'], env)).stdout) as { id: string; next: number }[];
    expect(json.map((s) => [s.id, s.next])).toEqual([['beat', expect.any(Number)], ['digest', next]]);

    const refused = await runCli(['schedulers', 'reports', 'run-now', 'digest'], env);
    expect(refused.code).toBe(2);
    expectCleanError(refused, /without confirmation.*--yes/);
    const ran = await runCli(['schedulers', 'reports', 'run-now', 'digest', '--yes', '--json'], env);
    expect(ran.code).toBe(0);
    const { jobId } = JSON.parse(ran.stdout) as { jobId: string };
    expect(await reports.getJob(jobId)).toMatchObject({ name: 'digest', data: { to: 'ops' }, state: 'waiting' });
    expect((await reports.getScheduler('digest'))!.next).toBe(next);

    const paused = await runCli(['schedulers', 'reports', 'pause', 'digest', '--yes'], env);
    expect(paused).toMatchObject({ code: 0, stdout: 'paused scheduler "digest" of reports\n' });
    expect((await reports.getScheduler('digest'))).toMatchObject({ paused: true, next: null });
    expect((await runCli(['schedulers', 'reports'], env)).stdout.split('\n').find((l) => l.includes('digest'))).toMatch(/│ paused /);
    const resumed = await runCli(['schedulers', 'reports', 'resume', 'digest'], env);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toMatch(/^resumed scheduler "digest" of reports: next tick in \d+[mhd]\n$/);
    expect((await reports.getScheduler('digest'))!.next).toBe(next);

    const unknown = await runCli(['schedulers', 'reports', 'remove', 'nightly', '-y'], env);
    expect(unknown.code).toBe(1);
    expectCleanError(unknown, /no scheduler "nightly" in queue "reports": beat, digest/);
    const badAction = await runCli(['schedulers', 'reports', 'explode'], env);
    expect(badAction.code).toBe(2);
    const removed = await runCli(['schedulers', 'reports', 'remove', 'beat', '-y'], env);
    expect(removed).toMatchObject({ code: 0, stdout: 'removed scheduler "beat" of reports\n' });
    expect((await reports.getSchedulers()).map((s) => s.id)).toEqual(['digest']);
  });

  it('metrics: the last hour as the engine counts it, for people and --json', async () => {
    const mail = new Queue<{ n: number }>('mail', { store });
    const w = new Worker<{ n: number }>('mail', async (job) => {
      if (job.data.n % 4 === 0) throw new Error('smtp down');
      return job.data.n;
    }, { store, logger: silentLogger });
    workers.push(w);
    await mail.addBulk(Array.from({ length: 8 }, (_, n) => ({ name: 'send', data: { n }, opts: { attempts: 1 } })));
    await waitFor(async () => { const c = await mail.getCounts(); return c.completed === 6 && c.failed === 2; }, { message: 'the jobs to finish' });
    const engine = await mail.getMetrics();
    const json = JSON.parse((await runCli(['metrics', 'mail', '--json'], env)).stdout) as { lastHour: { completed: number; failed: number; deadLettered: number }; minutes: unknown[] };
    expect(json.lastHour).toMatchObject({ completed: engine.lastHour.completed, failed: engine.lastHour.failed, deadLettered: 2 });
    expect(json.lastHour.completed).toBe(6);
    expect(json.minutes).toHaveLength(60);
    const human = await runCli(['metrics', 'mail', '--minutes', '3'], env);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain('last hour: 6 completed, 2 failed attempts (2 dead-lettered, 0 retried), 0 stalled');
    expect(human.stdout).toMatch(/handler duration: p50 \d+ms, p90 \d+ms, p99 \d+ms \(6 measured\)/);
    expect(human.stdout.split('\n').filter((l) => /│ \d\d:\d\d /.test(l))).toHaveLength(3);
    expect((await runCli(['metrics', 'mail', '--minutes', '61'], env)).code).toBe(2);
  });

  it('metrics: the oldest waiting and delayed lag samples per minute, in the table and in --json', async () => {
    const slow = new Queue('slow', { store });
    await slow.add('waits', {});
    await slow.add('later', {}, { delay: 5 });
    // Both run-at times are at most `stored` (+5 ms for the delayed job): the ages are bounded from it.
    const stored = Date.now();
    await waitFor(() => Date.now() > stored + 30, { message: 'the delayed job due (no worker promotes it)' });
    // What a worker's heartbeat does once a minute.
    await store.sampleGauges('slow');
    const json = JSON.parse((await runCli(['metrics', 'slow', '--json'], env)).stdout) as { minutes: { at: number; oldestWaitingMs: number | null; delayedLagMs: number | null }[] };
    const sampled = json.minutes.filter((m) => m.oldestWaitingMs !== null);
    expect(sampled).toHaveLength(1);
    expect(sampled[0]!.oldestWaitingMs).toBeGreaterThanOrEqual(30);
    expect(sampled[0]!.delayedLagMs).toBeGreaterThanOrEqual(20);
    expect(json.minutes.filter((m) => m.oldestWaitingMs === null && m.delayedLagMs === null)).toHaveLength(59);
    const human = (await runCli(['metrics', 'slow', '--minutes', '60'], env)).stdout;
    expect(human).toMatch(/│ minute\s+│ completed\s+│ failed attempts\s+│ dead\s+│ p50\s+│ p99\s+│ oldest waiting\s+│ delayed lag\s+│/);
    const hhmm = new Date(sampled[0]!.at).toISOString().slice(11, 16);
    const cells = human.split('\n').find((l) => l.startsWith(`│ ${hhmm} `))!.split('│').map((c) => c.trim());
    const shown = (v: number): string => (v < 1000 ? `${v}ms` : `${Math.floor(v / 1000)}s`);
    expect(cells.slice(7, 9)).toEqual([shown(sampled[0]!.oldestWaitingMs!), shown(sampled[0]!.delayedLagMs!)]);
    // A minute without a sample says so rather than 0.
    const others = human.split('\n').filter((l) => /^│ \d\d:\d\d /.test(l) && !l.startsWith(`│ ${hhmm} `));
    expect(others).toHaveLength(59);
    expect(others.map((l) => l.split('│').map((c) => c.trim()).slice(7, 9))).toEqual(others.map(() => ['-', '-']));
  });

  it('workers: every queue\'s workers in one table without a queue argument', async () => {
    const w = new Worker('billing', async () => 'ok', { store, concurrency: 3, logger: silentLogger });
    workers.push(w);
    await new Queue('billing', { store }).add('charge', {}, { delay: 3_600_000 }); // the queue is listed once it has a job
    await w.run();
    await waitFor(async () => (await runCli(['workers', '--json'], env)).stdout.includes(w.id), { message: 'the billing worker listed' });
    const all = JSON.parse((await runCli(['workers', '--json'], env)).stdout) as { queue: string; id: string; concurrency: number }[];
    expect(all.map((x) => [x.queue, x.concurrency]).sort()).toEqual([['billing', 3], ['mail', 1]]);
    const human = await runCli(['workers'], env);
    expect(human.stdout).toMatch(/│ queue\s+│ worker\s+│ host/);
    expect(human.stdout.split('\n').find((l) => l.includes(w.id))).toMatch(/^│ billing /);
  });
});
