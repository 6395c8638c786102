import { InvalidArgumentError, type Queue } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

interface Death {
  readonly name: string;
  readonly reason: string;
  readonly message: string;
}

const FETCH = { count: 0, workerId: 'w', lockMs: 10_000 };

/** The operations API: dead-letter pages and filters, bulk moves, purge, export, counts, metrics. */
export function opsCases(env: ContractEnv): void {
  const { queue } = env;

  /** Adds one job per death and dead-letters it through the store, in order; returns the ids. */
  async function kill(q: Queue, deaths: readonly Death[]): Promise<string[]> {
    const s = env.store();
    const added = await q.addBulk(deaths.map((d) => ({ name: d.name, data: {} })));
    const { jobs } = await s.claim(q.name, { count: deaths.length, workerId: 'w', lockMs: 10_000 });
    for (const [i, d] of deaths.entries()) {
      const held = jobs.find((j) => j.id === added[i]!.id)!;
      await s.fail(q.name, { id: held.id, token: held.token! }, { retryDelay: -1, reason: d.reason, message: d.message, stack: '', code: 'Error' });
    }
    return added.map((j) => j.id);
  }

  /** Newest first, ties by id (the index order): what getFailed pages walk. */
  async function newestFirst(q: Queue, ids: readonly string[]): Promise<string[]> {
    const jobs = await Promise.all(ids.map((id) => q.getJob(id)));
    return jobs
      .map((j) => j!)
      .sort((a, b) => b.finishedAt! - a.finishedAt! || (a.id < b.id ? 1 : -1))
      .map((j) => j.id);
  }

  describe('operations API', () => {
    it('getFailed filters by name, reason, error text and time, and pages with a cursor', async () => {
      const q = queue('dead');
      const ids = await kill(q, [
        { name: 'a', reason: 'error', message: 'boom one' },
        { name: 'b', reason: 'timeout', message: 'Boom two' },
        { name: 'a', reason: 'timeout', message: 'other' },
        { name: 'a', reason: 'error', message: 'BOOM three' },
        { name: 'b', reason: 'error', message: 'fine' },
      ]);
      const idsOf = async (query: Parameters<Queue['getFailed']>[0]) => (await q.getFailed(query)).jobs.map((j) => j.id).sort();
      expect(await idsOf({ name: 'a' })).toEqual([ids[0], ids[2], ids[3]].sort());
      expect(await idsOf({ reason: 'timeout' })).toEqual([ids[1], ids[2]].sort());
      expect(await idsOf({ name: 'a', reason: 'error' })).toEqual([ids[0], ids[3]].sort());
      expect(await idsOf({ errorContains: 'boom' })).toEqual([ids[0], ids[1], ids[3]].sort());
      expect(await idsOf({ since: Date.now() + 60_000 })).toEqual([]);
      expect(await idsOf({ until: 1 })).toEqual([]);

      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = await q.getFailed({ limit: 2, ...(cursor && { cursor }) });
        pages.push(page.jobs.map((j) => j.id));
        cursor = page.cursor ?? undefined;
      } while (cursor && pages.length < 10);
      expect(pages.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(pages.flat()).toEqual(await newestFirst(q, ids));
      const first = await q.getFailed({ name: 'a', limit: 1 });
      expect((await q.getFailed({ name: 'a', limit: 5, cursor: first.cursor! })).jobs).toHaveLength(2);
      await expect(q.getFailed({ reason: 'error', cursor: first.cursor! })).rejects.toThrow(InvalidArgumentError);
    });

    it('redrives in bulk by filter and by ids, with a delay and without resetting attempts', async () => {
      const q = queue('redrive');
      const ids = await kill(q, [
        { name: 'x', reason: 'timeout', message: 't1' },
        { name: 'x', reason: 'error', message: 'e1' },
        { name: 'y', reason: 'timeout', message: 't2' },
        { name: 'y', reason: 'error', message: 'e2' },
      ]);
      expect(await q.redrive({ filter: { reason: 'timeout' } })).toBe(2);
      expect(await env.state(q, ids[0]!)).toBe('waiting');
      expect(await q.getJob(ids[0]!)).toMatchObject({ attempt: 0, error: undefined });
      expect(await q.redrive([ids[1]!, ids[0]!, 'nope'], { delay: 60_000, resetAttempts: false })).toBe(1);
      expect(await q.getJob(ids[1]!)).toMatchObject({ state: 'delayed', attempt: 1 });
      expect(await q.redrive({ filter: { name: 'y' } })).toBe(1);
      expect(await q.getCounts()).toMatchObject({ failed: 0, waiting: 3, delayed: 1 });
    });

    it('cancels and promotes in bulk, by filter and by ids; jobs in other states are skipped', async () => {
      const q = queue('bulk');
      const xs = await q.addBulk(['x', 'x', 'x', 'y', 'y'].map((name) => ({ name, data: {} })));
      const later = await q.addBulk(['d', 'd', 'e'].map((name) => ({ name, data: {}, opts: { delay: 60_000 } })));
      expect(await q.cancel({ filter: { state: 'waiting', name: 'x' } })).toBe(3);
      expect(await q.cancel([xs[3]!.id, xs[0]!.id, 'missing'])).toBe(1);
      expect(await q.promote({ filter: { name: 'd' } })).toBe(2);
      expect(await q.promote([later[2]!.id, xs[4]!.id])).toBe(1);
      expect(await q.getCounts()).toMatchObject({ waiting: 4, delayed: 0, cancelled: 4 });
      expect((await q.getJobs('waiting')).map((j) => j.name)).toEqual(['y', 'd', 'd', 'e']);
      expect(await q.cancel({ filter: { state: 'delayed' } })).toBe(0);
    });

    it('purges finished jobs by name, age and limit; a name filter on dead letters uses their index', async () => {
      const q = queue('purge');
      const s = env.store();
      const done = await q.addBulk(['a', 'a', 'b', 'b'].map((name) => ({ name, data: {} })));
      const { jobs } = await s.claim('purge', { count: 4, workerId: 'w', lockMs: 10_000 });
      for (const j of jobs) await s.complete('purge', { id: j.id, token: j.token! }, '1', FETCH);
      await kill(q, [{ name: 'a', reason: 'error', message: '' }, { name: 'b', reason: 'error', message: '' }]);
      expect(await q.purge('completed', { name: 'a' })).toBe(2);
      expect(await q.purge('completed', { olderThan: 60_000 })).toBe(0);
      expect(await q.purge('completed', { limit: 1 })).toBe(1);
      expect(await q.purge('failed', { name: 'b' })).toBe(1);
      expect(await q.purge('failed')).toBe(1);
      expect(await q.getCounts()).toMatchObject({ completed: 1, failed: 0 });
      expect((await Promise.all(done.map((j) => q.getJob(j.id)))).filter(Boolean)).toHaveLength(1);
      await expect(q.purge('waiting' as 'failed')).rejects.toThrow(InvalidArgumentError);
    });

    it('exports and counts jobs of a state, oldest first, with filters', async () => {
      const q = queue('export');
      const dead = await kill(q, [{ name: 'c', reason: 'timeout', message: 'slow' }, { name: 'c', reason: 'error', message: 'bad' }]);
      const waiting = await q.addBulk(['a', 'b', 'a'].map((name) => ({ name, data: { n: name } })));
      const exported: string[] = [];
      for await (const job of q.exportJobs('waiting')) exported.push(job.id);
      expect(exported).toEqual(waiting.map((j) => j.id));
      const named: unknown[] = [];
      for await (const job of q.exportJobs('waiting', { name: 'a' })) named.push(job.data);
      expect(named).toEqual([{ n: 'a' }, { n: 'a' }]);
      const slow: string[] = [];
      for await (const job of q.exportJobs('failed', { errorContains: 'SLOW' })) slow.push(job.id);
      expect(slow).toEqual([dead[0]]);
      expect(await q.countJobs('waiting')).toBe(3);
      expect(await q.countJobs('waiting', { name: 'a' })).toBe(2);
      expect(await q.countJobs('failed', { reason: 'timeout' })).toBe(1);
      expect(await q.countJobs('failed', { name: 'c', errorContains: 'ba' })).toBe(1);
      await expect(q.countJobs('waiting', { reason: 'error' })).rejects.toThrow(InvalidArgumentError);
    });

    it('metrics count completions with duration buckets, failures, retries, dead letters and stalls per minute', async () => {
      const q = queue('metrics');
      const s = env.store();
      await q.addBulk(Array.from({ length: 4 }, (_, i) => ({ name: `j${i}`, data: {} })));
      const { jobs } = await s.claim('metrics', { count: 4, workerId: 'w', lockMs: 10_000 });
      const lease = (i: number) => ({ id: jobs[i]!.id, token: jobs[i]!.token! });
      await s.complete('metrics', lease(0), '1', FETCH, 100);
      await s.complete('metrics', lease(1), '1', FETCH, 100);
      await s.fail('metrics', lease(2), { retryDelay: 0, reason: 'error', message: 'again', stack: '', code: 'Error' });
      await s.fail('metrics', lease(3), { retryDelay: -1, reason: 'error', message: 'dead', stack: '', code: 'Error' });
      const [stuck] = (await s.claim('metrics', { count: 1, workerId: 'w', lockMs: 1 })).jobs;
      const claimedAt = Date.now();
      await waitFor(() => Date.now() > claimedAt + 5, { message: 'the 1 ms lease to expire' });
      expect(await s.reap('metrics', 0, 10)).toEqual([{ id: stuck!.id, state: 'failed' }]);
      await q.add('waits', {});
      const m = await q.getMetrics();
      expect(m.minutes).toHaveLength(60);
      expect(m.minutes[59]!.at).toBeLessThanOrEqual(m.at);
      expect(m.at - m.minutes[59]!.at).toBeLessThan(60_000);
      expect(m.lastHour).toMatchObject({ completed: 2, failed: 2, retried: 1, deadLettered: 2, stalled: 1, durationSumMs: 200 });
      expect(m.lastHour.durationBuckets[7]).toBe(2);
      expect(m.lastHour.duration).toMatchObject({ count: 2, meanMs: 100 });
      expect(m.lastHour.duration!.p50Ms).toBeGreaterThanOrEqual(64);
      expect(m.lastHour.duration!.p99Ms).toBeLessThanOrEqual(128);
      expect(m.counts).toMatchObject({ completed: 2, failed: 2, waiting: 1 });
      expect(m.oldestWaitingMs).toBeGreaterThanOrEqual(0);
      expect(m.oldestWaitingMs).toBeLessThan(60_000);
      expect(m.delayedLagMs).toBe(0);
      // The same figures per job name: every name here holds one of the queue's slots.
      const byName = m.lastHour.byName;
      expect(byName.get('j0')).toMatchObject({ completed: 1, failed: 0, durationSumMs: 100 });
      expect(byName.get('j0')!.durationBuckets[7]).toBe(1);
      expect(byName.get('j3')).toMatchObject({ completed: 0, failed: 1, deadLettered: 1 });
      expect(byName.get(stuck!.name)).toMatchObject({ stalled: 1, deadLettered: 1 });
      expect(byName.get('j2')).toMatchObject({ failed: 1, retried: 1 });
      expect(m.lastHour.otherNames).toMatchObject({ completed: 0, failed: 0, deadLettered: 0, stalled: 0 });
    });

    it('gauge history: one sample a minute of the oldest waiting age and the delayed lag, in getMetrics().minutes', async () => {
      const q = queue('gauges');
      const s = env.store();
      // Not in a minute's last 2 s: both samples below must fall in one minute (bounded: at most 2 s).
      await waitFor(() => Date.now() % 60_000 < 58_000, { timeout: 3000, message: 'a minute with 2 s left' });
      const addedAt = Date.now();
      await q.add('waits', {});
      await q.add('later', {}, { delay: 5 });
      // Both jobs' run-at is at most `stored` (+5 ms for the delayed one): the ages below are bounded from it.
      const stored = Date.now();
      await waitFor(() => Date.now() > stored + 30, { message: 'the delayed job to be due (nothing promotes it: no worker)' });
      const before = (await q.getMetrics()).minutes;
      expect(before.every((m) => m.oldestWaitingMs === null && m.delayedLagMs === null)).toBe(true);
      expect(await s.sampleGauges('gauges')).toBe(true);
      // A second worker's call in the same minute leaves the sample.
      expect(await s.sampleGauges('gauges')).toBe(false);
      const readAt = Date.now();
      const m = await q.getMetrics();
      const sampled = m.minutes.filter((x) => x.oldestWaitingMs !== null);
      expect(sampled).toHaveLength(1);
      const [minute] = sampled;
      expect(minute!.oldestWaitingMs).toBeGreaterThanOrEqual(30);
      expect(minute!.oldestWaitingMs).toBeLessThanOrEqual(readAt - addedAt + 5);
      expect(minute!.delayedLagMs).toBeGreaterThanOrEqual(20);
      expect(minute!.delayedLagMs).toBeLessThanOrEqual(readAt - addedAt);
      // Samples are values, not counts: no counter moved.
      expect(m.lastHour).toMatchObject({ completed: 0, failed: 0, stalled: 0 });
      expect(minute!.byName.size).toBe(0);
    });

    it('gauge history: a running worker samples from its heartbeat; an empty queue samples zeros', async () => {
      const q = queue('gauges-worker');
      env.worker('gauges-worker', () => Promise.resolve(1));
      let read = await q.getMetrics();
      await waitFor(async () => {
        read = await q.getMetrics();
        return read.minutes.some((x) => x.oldestWaitingMs !== null);
      }, { timeout: 5000, message: 'the worker heartbeat to sample the gauges' });
      const sampled = read.minutes.filter((x) => x.oldestWaitingMs !== null);
      expect(sampled.map((x) => [x.oldestWaitingMs, x.delayedLagMs])).toEqual(sampled.map(() => [0, 0]));
    });

    it('metrics per job name: the first 20 names count on their own, the jobs of the others together', async () => {
      const q = queue('metric-names');
      const s = env.store();
      const names = Array.from({ length: 23 }, (_, i) => `n${String(i).padStart(2, '0')}`);
      // One at a time, so the names take their slots in this order.
      for (const name of names) {
        await q.add(name, {});
        const [job] = (await s.claim('metric-names', { count: 1, workerId: 'w', lockMs: 10_000 })).jobs;
        await s.complete('metric-names', { id: job!.id, token: job!.token! }, '1', FETCH, 3);
      }
      const { lastHour } = await q.getMetrics();
      expect(lastHour.completed).toBe(23);
      expect([...lastHour.byName.keys()].sort()).toEqual(names.slice(0, 20));
      expect(lastHour.byName.get('n00')).toMatchObject({ completed: 1, durationSumMs: 3 });
      expect(lastHour.otherNames).toMatchObject({ completed: 3, durationSumMs: 9 });
    });
  });
}
