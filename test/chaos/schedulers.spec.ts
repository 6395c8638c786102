import { Queue, type MissedPolicy, type RedisStore } from '../../lib/index.js';
import { redisUrl, testStore, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { WorkerProcess } from '../helpers/worker-process.js';

/** Tick time of a tick job id `<scheduler id>:<ms>`. */
const tickOf = (id: string) => Number(id.slice(id.lastIndexOf(':') + 1));
const EVERY = 500;

describe('schedulers across processes', () => {
  let store: RedisStore;
  let prefix: string;
  const procs: WorkerProcess[] = [];

  beforeEach(async () => {
    prefix = uniquePrefix('sched');
    store = await testStore(redisUrl(), prefix);
  });

  afterEach(async () => {
    await Promise.all(procs.splice(0).map((p) => p.kill()));
    await store.disconnect();
  });

  const start = async (queue: string) => {
    const proc = await WorkerProcess.start({ url: redisUrl(), prefix, queue, worker: { concurrency: 2 } });
    procs.push(proc);
    return proc;
  };
  const completedIds = (ps: readonly WorkerProcess[]) => ps.flatMap((p) => p.completed().map((m) => m.id));

  it('runs each tick of an every-500 ms scheduler exactly once with 3 worker processes for 5 s', async () => {
    const queue = new Queue('beat', { store });
    const workers = [await start('beat'), await start('beat'), await start('beat')];
    // Every process upserts too, as apps do at boot: still one scheduler, one pending tick.
    const upserts = await Promise.all(workers.map(() => queue.upsertScheduler('beat', { every: EVERY, missed: 'all' }, { name: 'beat' })));
    expect(upserts.filter((u) => u.changed)).toHaveLength(1);
    const first = upserts[0]!.next!;
    await waitFor(() => completedIds(workers).some((id) => tickOf(id) >= first + 5000), { timeout: 15_000, message: '5 s of ticks' });

    const started = workers.flatMap((p) => p.started().map((m) => m.id));
    const ticks = [...new Set(started)].map(tickOf).sort((a, b) => a - b);
    expect(started.length).toBe(new Set(started).size); // no tick started twice, in any process
    expect(ticks[0]).toBe(first);
    for (let i = 1; i < ticks.length; i += 1) expect(ticks[i]! - ticks[i - 1]!).toBe(EVERY); // and none missing
    expect(ticks.length).toBeGreaterThanOrEqual(11);
    // The work was shared: more than one process ran ticks.
    expect(workers.filter((p) => p.started().length > 0).length).toBeGreaterThan(1);
    // verify() walks the indexes one read at a time: it needs the workers stopped.
    await Promise.all(workers.map((p) => p.close()));
    expect(await queue.verify()).toEqual([]);
  });

  it.each<[MissedPolicy]>([['skip'], ['once'], ['all']])(
    'missed %s: the worker process stopped for 3 s, then restarted',
    async (missed) => {
      const name = `gap-${missed}`;
      const queue = new Queue(name, { store });
      let procA = await start(name);
      await queue.upsertScheduler('gap', { every: EVERY, missed }, { name: 'tick' });
      await waitFor(() => procA.completed().length >= 3, { timeout: 10_000, message: '3 ticks before the stop' });
      await procA.close();
      const stoppedAt = Date.now();
      // Ticks produced before the stop: run, or promoted but not yet claimed when the workers closed.
      const produced = [...(await queue.getJobs('completed')), ...(await queue.getJobs('waiting'))];
      const before = produced.map((j) => tickOf(j.id)).sort((a, b) => a - b);
      const lastBefore = before.at(-1)!;
      const pending = (await queue.getScheduler('gap'))!.next!;
      expect(pending).toBe(lastBefore + EVERY);
      // Nothing runs for 3 s: this is the outage being simulated, not a wait for a result.
      await waitFor(() => Date.now() - stoppedAt >= 3000, { timeout: 4000, interval: 50, message: 'the 3 s outage' });
      const restartedAt = Date.now();
      procA = await start(name);
      await waitFor(() => procA.completed().some((m) => tickOf(m.id) > restartedAt + EVERY), { timeout: 10_000, message: 'ticks after the restart' });

      const ran = procA.started().map((m) => tickOf(m.id));
      // Every tick job that exists now (run, running or waiting its turn): the catch-up may still be running.
      const states = ['completed', 'active', 'waiting'] as const;
      const existing = (await Promise.all(states.map((s) => queue.getJobs(s)))).flat().map((j) => tickOf(j.id));
      const after = existing.filter((t) => !before.includes(t)).sort((a, b) => a - b);
      const all = [...before, ...after];
      expect(new Set(ran).size).toBe(ran.length);
      const inGap = after.filter((t) => t < restartedAt - EVERY);
      const fellInGap = Math.floor((restartedAt - EVERY - pending) / EVERY); // ticks after the pending one that fell while stopped
      const info = (await queue.getScheduler('gap'))!;
      if (missed === 'skip') {
        expect(inGap).toEqual([]);
        expect(info.skipped).toBeGreaterThanOrEqual(fellInGap + 1);
      } else if (missed === 'once') {
        expect(inGap).toEqual([pending]);
        expect(info.skipped).toBeGreaterThanOrEqual(fellInGap);
      } else {
        for (let i = 1; i < all.length; i += 1) expect(all[i]! - all[i - 1]!).toBe(EVERY);
        expect(inGap.length).toBeGreaterThanOrEqual(fellInGap + 1);
        expect(info.skipped).toBe(0);
      }
      // After the restart the scheduler is back on its grid (with 'all' the check above already covers every tick).
      const late = after.filter((t) => t > restartedAt);
      expect(late.length).toBeGreaterThanOrEqual(1);
      for (const t of late) expect(t % EVERY).toBe(0);
      await procA.close();
      expect(await queue.verify()).toEqual([]);
    },
    30_000,
  );
});
