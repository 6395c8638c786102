import { importFromBullMQ, Queue, type RedisStore } from '../../lib/index.js';
import { Queue as BullQueue } from 'bullmq';
import { spawn } from 'node:child_process';
import { createClient } from 'redis';
import { BIN, cliEnv, collect, runCli, startCli } from '../cli/cli.js';
import { redisUrl, testStore, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { connectionOf } from './bullmq-fixture.js';

const DAY = 24 * 3600_000;

/** `spool import bullmq`: the summary, --json, --remove-imported, and a kill -9 mid-import followed by a rerun. */
describe('spool import bullmq', () => {
  const stores: RedisStore[] = [];
  const bulls: BullQueue[] = [];
  afterAll(async () => {
    await Promise.all([...stores.map((s) => s.disconnect()), ...bulls.map((q) => q.close())]);
  });

  async function bullQueue(prefix: string, name: string): Promise<BullQueue> {
    const q = new BullQueue(name, { connection: connectionOf(redisUrl()), prefix });
    bulls.push(q);
    return q;
  }

  async function store(prefix: string): Promise<RedisStore> {
    const s = await testStore(undefined, prefix);
    stores.push(s);
    return s;
  }

  it('prints a summary per state; --remove-imported deletes each BullMQ job once copied', async () => {
    const bullPrefix = uniquePrefix('bull');
    const prefix = uniquePrefix('spool');
    const q = await bullQueue(bullPrefix, 'mail');
    await q.addBulk([{ name: 'a', data: { n: 1 } }, { name: 'b', data: { n: 2 } }]);
    await q.add('later', { n: 3 }, { delay: DAY });
    const args = ['import', 'bullmq', 'mail', '--from-url', redisUrl(), '--bull-prefix', bullPrefix];
    const dry = await runCli([...args, '--dry-run'], cliEnv(prefix));
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/mail[│\s]+wait[│\s]+2[│\s]+2[│\s]+0[│\s]+0/);
    const refused = await runCli([...args, '--remove-imported'], cliEnv(prefix));
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/add --yes/);
    const run = await runCli([...args, '--remove-imported', '--yes', '--json'], cliEnv(prefix));
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { queues: { states: Record<string, { imported: number; removed: number }> }[] };
    expect(report.queues[0]!.states.wait).toMatchObject({ imported: 2, removed: 2 });
    expect(report.queues[0]!.states.delayed).toMatchObject({ imported: 1, removed: 1 });
    expect(await q.getJobCounts('wait', 'delayed')).toEqual({ wait: 0, delayed: 0 });
    const spool = new Queue('mail', { store: await store(prefix) });
    expect(await spool.getCounts()).toMatchObject({ waiting: 2, delayed: 1 });
  });

  it('--states, --to-url and --prefix pick what is imported and where; a terminal gets a progress bar', async () => {
    const bullPrefix = uniquePrefix('bull');
    const prefix = uniquePrefix('spool');
    const q = await bullQueue(bullPrefix, 'picked');
    await q.add('now', { n: 1 }, { jobId: 'now-1' });
    await q.add('later', { n: 2 }, { jobId: 'later-2', delay: DAY });
    // REDIS_URL points nowhere: the jobs reach Spool only through --to-url, under --prefix rather than SPOOL_PREFIX.
    const env = cliEnv(uniquePrefix('unused'), { REDIS_URL: 'redis://127.0.0.1:1' });
    const args = ['import', 'bullmq', 'picked', '--from-url', redisUrl(), '--bull-prefix', bullPrefix, '--to-url', redisUrl(), '--prefix', prefix, '--states', 'delayed', '--json'];
    const run = await runCli(args, env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { queues: { states: Record<string, { imported: number }> }[] };
    expect(Object.keys(report.queues[0]!.states)).toEqual(['delayed']);
    const spool = new Queue('picked', { store: await store(prefix) });
    expect((await spool.getJob('later-2'))?.state).toBe('delayed');
    expect(await spool.getJob('now-1')).toBeNull();
    const refused = await runCli([...args.slice(0, -3), '--states', 'delayed,queued'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/--states: queued: use some of/);

    // On a terminal (script(1) gives the CLI a pseudo-terminal) a bar per state shows on stderr; piped, none (above).
    const quoted = [process.execPath, BIN, ...args.slice(0, -3), '--states', 'wait'].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
    const tty = await collect(spawn('script', ['-qefc', quoted, '/dev/null'], { env, stdio: 'pipe' }), 20_000);
    expect(tty.code).toBe(0);
    expect(tty.stdout).toMatch(/importing picked wait \[[^\]]*\] 1\/1 jobs/);
    expect((await spool.getJob('now-1'))?.state).toBe('waiting');
  });

  it('a kill -9 mid-import with --remove-imported loses no job; the rerun moves the rest', async () => {
    const bullPrefix = uniquePrefix('bull');
    const q = await bullQueue(bullPrefix, 'moved');
    const total = 10_000;
    // A quarter delayed: several pages of a list and of a sorted set, each page removed from under the reader.
    for (let i = 0; i < total; i += 5000) {
      await q.addBulk(Array.from({ length: 5000 }, (_, k) => ({ name: 'n', data: { i: i + k }, opts: { jobId: `m-${i + k}`, ...((i + k) % 4 === 0 && { delay: DAY }) } })));
    }
    const prefix = uniquePrefix('moved');
    const target = await store(prefix);
    const spool = new Queue('moved', { store: target });
    const args = ['import', 'bullmq', 'moved', '--from-url', redisUrl(), '--bull-prefix', bullPrefix, '--remove-imported', '--yes'];
    const child = startCli(args, cliEnv(prefix));
    const ended = collect(child, 60_000);
    await waitFor(async () => (await spool.getCounts()).waiting >= 2000, { timeout: 30_000, interval: 5, message: 'the import to be under way' });
    child.kill('SIGKILL');
    expect((await ended).code).toBeNull();
    expect((await spool.getCounts()).waiting).toBeLessThan(total * 0.75);
    // Every job is on one side at least: BullMQ's copy goes only once Spool's is written.
    const raw = createClient({ url: redisUrl() });
    await raw.connect();
    const inBull = new Set([...(await raw.lRange(`${bullPrefix}:moved:wait`, 0, -1)), ...(await raw.zRange(`${bullPrefix}:moved:delayed`, 0, -1).finally(() => raw.close()))]);
    const inSpool = new Set([...(await target.listIds('moved', 'waiting', 0, -1)), ...(await target.listIds('moved', 'delayed', 0, -1))]);
    expect(inBull.size).toBeGreaterThan(0);
    expect(inSpool.size).toBeLessThan(total);
    expect(Array.from({ length: total }, (_, i) => `m-${i}`).filter((id) => !inBull.has(id) && !inSpool.has(id))).toEqual([]);

    const rerun = await runCli([...args, '--json'], cliEnv(prefix));
    expect(rerun.code).toBe(0);
    const report = JSON.parse(rerun.stdout) as { queues: { states: Record<string, { found: number; removed: number }> }[] };
    expect(report.queues[0]!.states.wait!.removed).toBe(report.queues[0]!.states.wait!.found);
    expect(await q.getJobCounts('wait', 'delayed')).toEqual({ wait: 0, delayed: 0 });
    expect(await spool.getCounts()).toMatchObject({ waiting: total * 0.75, delayed: total / 4 });
    expect(await spool.verify()).toEqual([]);
  }, 120_000);

  it('a kill -9 mid-import and a rerun leave what one clean run leaves', async () => {
    const bullPrefix = uniquePrefix('bull');
    const q = await bullQueue(bullPrefix, 'bulk');
    const total = 10_000;
    for (let i = 0; i < total; i += 5000) {
      await q.addBulk(Array.from({ length: 5000 }, (_, k) => ({ name: 'n', data: { i: i + k }, opts: (i + k) % 10 === 0 ? { delay: DAY + i + k, jobId: `d-${i + k}` } : {} })));
    }
    const clean = await store(uniquePrefix('clean'));
    await importFromBullMQ({ from: redisUrl(), queue: 'bulk', bullPrefix, store: clean });

    const prefix = uniquePrefix('crash');
    const crashed = await store(prefix);
    const spool = new Queue('bulk', { store: crashed });
    const child = startCli(['import', 'bullmq', 'bulk', '--from-url', redisUrl(), '--bull-prefix', bullPrefix], cliEnv(prefix));
    const ended = collect(child, 60_000);
    // The controlled point: some pages of waiting jobs written, the rest not.
    await waitFor(async () => (await spool.getCounts()).waiting >= 2000, { timeout: 30_000, interval: 5, message: 'the import to be under way' });
    child.kill('SIGKILL');
    const run = await ended;
    expect(run.code).toBeNull();
    const atKill = await spool.getCounts();
    expect(atKill.waiting + atKill.delayed).toBeLessThan(total);

    const rerun = await importFromBullMQ({ from: redisUrl(), queue: 'bulk', bullPrefix, store: crashed });
    expect(rerun.queues[0]!.states.wait!.existing).toBeGreaterThanOrEqual(atKill.waiting);
    const ids = async (s: RedisStore, state: 'waiting' | 'delayed') => s.listIds('bulk', state, 0, -1);
    expect(await ids(crashed, 'waiting')).toEqual(await ids(clean, 'waiting'));
    expect(await ids(crashed, 'delayed')).toEqual(await ids(clean, 'delayed'));
    expect(await spool.getCounts()).toEqual(await new Queue('bulk', { store: clean }).getCounts());
    expect(await spool.verify()).toEqual([]);
  }, 120_000);
});
