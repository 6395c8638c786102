import { importFromBullMQ, Queue, type RedisStore } from '../../lib/index.js';
import { Queue as BullQueue } from 'bullmq';
import { cliEnv, collect, runCli, startCli } from '../cli/cli.js';
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
