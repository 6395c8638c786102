import type { Job, Queue } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

/** Tick time of a tick job id `<scheduler id>:<ms>`. */
const tickOf = (id: string) => Number(id.slice(id.lastIndexOf(':') + 1));

/** Cron and every-N schedulers: pending tick jobs, runs, missed ticks, limits, removal. */
export function schedulerCases(env: ContractEnv): void {
  const { queue, worker } = env;

  /** Upserts an every-50 ms scheduler with no worker running, and waits until at least five more ticks fell after its pending one. */
  async function missedFive(q: Queue, id: string, missed: 'skip' | 'once' | 'all'): Promise<number> {
    const { next } = await q.upsertScheduler(id, { every: 50, missed }, { name: 'tick' });
    await waitFor(() => Date.now() > next! + 5 * 50 + 10, { message: 'five ticks to fall unpromoted' });
    return next!;
  }

  describe('schedulers', () => {
    it('every: one pending tick job on the grid, ticks run one after the other; the same spec changes nothing; remove ends it', async () => {
      const q = queue('every');
      const first = await q.upsertScheduler('beat', { every: 60_000 }, { name: 'beat', data: { n: 1 } });
      expect(first.next! % 60_000).toBe(0);
      expect(await q.getJob(`beat:${first.next}`)).toMatchObject({ name: 'beat', data: { n: 1 }, state: 'delayed', runAt: first.next });
      expect(await q.upsertScheduler('beat', { every: 60_000 }, { name: 'beat', data: { n: 1 } })).toEqual({ changed: false, next: first.next });
      expect(await q.getScheduler('beat')).toMatchObject({ id: 'beat', repeat: { every: 60_000, missed: 'once' }, next: first.next, count: 0, skipped: 0 });

      const ran: string[] = [];
      worker('every', async (job: Job) => void ran.push(job.id));
      await q.upsertScheduler('fast', { every: 100, missed: 'all' }, { name: 'fast' });
      await waitFor(() => ran.length >= 3, { message: 'three ticks' });
      const ticks = ran.map(tickOf).sort((a, b) => a - b);
      expect(ticks.every((t, i) => i === 0 || t - ticks[i - 1]! === 100)).toBe(true);
      const info = (await q.getScheduler('fast'))!;
      expect(info.count).toBeGreaterThanOrEqual(3);
      expect(info.lastJobId).toMatch(/^fast:\d+$/);

      expect(await q.removeScheduler('beat')).toBe(true);
      expect(await q.getJob(`beat:${first.next}`)).toBeNull();
      expect(await q.removeScheduler('beat')).toBe(false);
      expect((await q.getSchedulers()).map((s) => s.id)).toEqual(['fast']);
    });

    it('runSchedulerNow: one job from the template now; the pending tick and the count stay', async () => {
      const q = queue('runnow');
      const { next } = await q.upsertScheduler('digest', { every: 3_600_000 }, { name: 'digest', data: { to: 'ops' }, opts: { priority: 3, attempts: 5 } });
      const id = await q.runSchedulerNow('digest');
      expect(id).toMatch(/^digest:\d+$/);
      expect(tickOf(id!)).toBeLessThan(next!);
      expect(await q.getJob(id!)).toMatchObject({ name: 'digest', data: { to: 'ops' }, state: 'waiting', priority: 3, maxAttempts: 5 });
      expect(await q.getJob(`digest:${next}`)).toMatchObject({ state: 'delayed' });
      expect(await q.getScheduler('digest')).toMatchObject({ next, count: 0 });
      expect(await q.runSchedulerNow('nope')).toBeNull();
      await expect(q.runSchedulerNow('')).rejects.toThrow(/scheduler id/i);
    });

    it('pauseScheduler: the pending tick goes and none is armed; the same upsert keeps it paused; resume arms the next tick after now', async () => {
      const q = queue('pausing');
      const { next } = await q.upsertScheduler('beat', { every: 60_000 }, { name: 'beat' });
      expect(await q.pauseScheduler('beat')).toBe(true);
      expect(await q.getJob(`beat:${next}`)).toBeNull();
      expect(await q.getScheduler('beat')).toMatchObject({ paused: true, next: null, count: 0 });
      expect((await q.getCounts()).delayed).toBe(0);
      expect(await q.pauseScheduler('beat')).toBe(true); // already paused: still known
      expect(await q.upsertScheduler('beat', { every: 60_000 }, { name: 'beat' })).toEqual({ changed: false, next: null });
      expect((await q.getScheduler('beat'))!.paused).toBe(true);
      expect(await q.resumeScheduler('beat')).toBe(true);
      const resumed = (await q.getScheduler('beat'))!;
      expect(resumed.paused).toBe(false);
      expect(resumed.next! % 60_000).toBe(0);
      expect(await q.getJob(`beat:${resumed.next}`)).toMatchObject({ state: 'delayed', runAt: resumed.next });
      expect(await q.resumeScheduler('beat')).toBe(true); // running already: nothing changes
      expect((await q.getCounts()).delayed).toBe(1);
      expect(await q.pauseScheduler('nope')).toBe(false);
      expect(await q.resumeScheduler('nope')).toBe(false);
      // A new definition replaces a paused scheduler, running.
      await q.pauseScheduler('beat');
      const changed = await q.upsertScheduler('beat', { every: 30_000 }, { name: 'beat' });
      expect(changed.changed).toBe(true);
      expect((await q.getScheduler('beat'))).toMatchObject({ paused: false, next: changed.next });
      // cron: paused and resumed before its pending tick, it arms that same tick again.
      const daily = await q.upsertScheduler('daily', { cron: '0 8 * * *', tz: 'Europe/Paris' }, { name: 'digest' });
      await q.pauseScheduler('daily');
      await q.resumeScheduler('daily');
      expect((await q.getScheduler('daily'))!.next).toBe(daily.next);
      expect(await q.getJob(`daily:${daily.next}`)).toMatchObject({ state: 'delayed' });
    });

    it('cron: ticks on the pattern (seconds field), from startAt', async () => {
      const q = queue('cron');
      const ran: string[] = [];
      worker('cron', async (job: Job) => void ran.push(job.id));
      const { next } = await q.upsertScheduler('sec', { cron: '* * * * * *', startAt: Date.now() + 500, missed: 'all' }, { name: 'c' });
      expect(next! % 1000).toBe(0);
      await waitFor(() => ran.length >= 2, { message: 'two cron ticks' });
      const ticks = ran.map(tickOf).sort((a, b) => a - b);
      expect(ticks[0]).toBe(next);
      expect(ticks[1]! - ticks[0]!).toBe(1000);
      expect((await q.getScheduler('sec'))!.count).toBeGreaterThanOrEqual(2);
    });

    it("missed 'skip': the pending tick and the missed ones are dropped", async () => {
      const q = queue('skip');
      const t0 = await missedFive(q, 's', 'skip');
      const ran: string[] = [];
      worker('skip', async (job: Job) => void ran.push(job.id));
      await waitFor(async () => ((await q.getScheduler('s'))?.skipped ?? 0) >= 6, { message: 'the missed ticks skipped' });
      expect(await q.getJob(`s:${t0}`)).toBeNull();
      expect(ran.map(tickOf).every((t) => t > t0 + 5 * 50)).toBe(true);
    });

    it("missed 'once': the pending tick runs for all of them", async () => {
      const q = queue('once');
      const t0 = await missedFive(q, 'o', 'once');
      const ran: string[] = [];
      worker('once', async (job: Job) => void ran.push(job.id));
      await waitFor(() => ran.includes(`o:${t0}`), { message: 'the pending tick to run' });
      const info = (await q.getScheduler('o'))!;
      expect(info.skipped).toBeGreaterThanOrEqual(5);
      for (let k = 1; k <= 5; k++) expect(await q.getJob(`o:${t0 + k * 50}`)).toBeNull();
    });

    it("missed 'all': every missed tick runs, in tick order", async () => {
      const q = queue('all');
      const t0 = await missedFive(q, 'a', 'all');
      const ran: string[] = [];
      worker('all', async (job: Job) => void ran.push(job.id), { concurrency: 1 });
      await waitFor(() => ran.length >= 6, { message: 'the pending and the five missed ticks' });
      expect(ran.slice(0, 6).map(tickOf)).toEqual([0, 1, 2, 3, 4, 5].map((k) => t0 + k * 50));
      expect((await q.getScheduler('a'))!.skipped).toBe(0);
    });

    it("a paused queue holds its ticks: one pending tick, none piled up; on resume the missed policy ('once') runs it once for all", async () => {
      const q = queue('held');
      await q.pause();
      const ran: string[] = [];
      worker('held', async (job: Job) => void ran.push(job.id));
      const { next: t0 } = await q.upsertScheduler('h', { every: 50 }, { name: 'tick' });
      // Ten ticks fall while paused: the worker's promoter looks at the scheduler all along.
      await waitFor(() => Date.now() > t0! + 10 * 50, { message: 'ten ticks to fall while paused' });
      await waitFor(async () => ((await q.getScheduler('h'))?.skipped ?? 0) === 0 && (await q.getCounts()).delayed === 1, { message: 'the tick to stay pending' });
      const counts = await q.getCounts();
      expect({ waiting: counts.waiting, paused: counts.paused, delayed: counts.delayed }).toEqual({ waiting: 0, paused: 0, delayed: 1 });
      expect(await q.getJob(`h:${t0}`)).toMatchObject({ state: 'delayed', runAt: t0 });
      expect(ran).toEqual([]);

      await q.resume();
      await waitFor(() => ran.includes(`h:${t0}`), { message: 'the held tick to run after resume' });
      const info = (await q.getScheduler('h'))!;
      expect(info.skipped).toBeGreaterThanOrEqual(10);
      for (let k = 1; k <= 10; k++) expect(await q.getJob(`h:${t0! + k * 50}`)).toBeNull();
      expect(ran.filter((id) => tickOf(id) <= t0! + 10 * 50)).toEqual([`h:${t0}`]);
    });

    it("maxWaiting holds ticks too: no more than the limit wait, and a catch-up ('all') stops at the limit", async () => {
      const q = queue('full');
      await q.configure({ maxWaiting: 3 });
      // The name is paused: its tick jobs wait (parked) and count against maxWaiting, while the worker promotes.
      await q.pause({ names: ['tick'] });
      worker('full', async () => undefined);
      const { next: t0 } = await q.upsertScheduler('f', { every: 40, missed: 'all' }, { name: 'tick' });
      await waitFor(async () => (await q.getCounts()).paused === 3, { message: 'three ticks to wait' });
      await waitFor(() => Date.now() > t0! + 15 * 40, { message: 'more ticks to fall than fit' });
      const counts = await q.getCounts();
      expect({ paused: counts.paused, delayed: counts.delayed }).toEqual({ paused: 3, delayed: 1 });
      // The catch-up when room comes back is bounded by the room: the rest count as skipped.
      await q.configure({ maxWaiting: 5 });
      await waitFor(async () => ((await q.getScheduler('f'))?.skipped ?? 0) > 0, { message: 'the catch-up to run' });
      expect((await q.getCounts()).paused).toBeLessThanOrEqual(5);
      await q.resume({ names: ['tick'] });
    });

    it('ends after `limit` ticks', async () => {
      const q = queue('limit');
      const ran: string[] = [];
      worker('limit', async (job: Job) => void ran.push(job.id));
      await q.upsertScheduler('l', { every: 50, limit: 2, missed: 'all' }, { name: 'l' });
      await waitFor(async () => (await q.getScheduler('l'))?.next === null, { message: 'the scheduler to end' });
      await waitFor(() => ran.length === 2, { message: 'two ticks' });
      expect((await q.getScheduler('l'))!.count).toBe(2);
    });
  });
}
