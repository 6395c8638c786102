import { Queue, UnrecoverableError } from '../../lib/index.js';
import { RENUMBER_MARGIN } from '../../lib/engine/ids.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

/** Ids, dedup, order, delays, retries and dead letters. */
export function jobCases(env: ContractEnv): void {
  const { queue, worker, state, runOrder } = env;
  describe('ids', () => {
    it('numbers jobs in order, keeps a caller id and returns the existing job for it', async () => {
      const q = queue('ids');
      const a = await q.add('a', { n: 1 });
      const b = await q.add('b', { n: 2 });
      expect([a.id, b.id]).toEqual(['1000000001', '1000000002']);
      const mine = await q.add('c', { n: 3 }, { jobId: 'order-42' });
      expect(mine).toMatchObject({ id: 'order-42', state: 'waiting', data: { n: 3 } });
      const again = await q.add('c', { n: 4 }, { jobId: 'order-42' });
      expect(again).toMatchObject({ id: 'order-42', data: { n: 3 } });
      expect((await q.getCounts()).waiting).toBe(3);
    });

    it('gives a job a fresh number when its numbered id is taken (the counter went back), never the other job', async () => {
      const q = queue('taken');
      const first = await q.add('a', { n: 1 });
      await q.add('b', { n: 2 });
      // What a producer holding a block from before a failover sends: a number another job has by now.
      const outcome = await env.store().add('taken', [{
        id: first.id, name: 'c', data: '{"n":3}', opts: '{}', delay: 0, priority: 0, lifo: false, maxAttempts: 1, deadline: 0,
        removeOnComplete: '1000,86400000', removeOnFail: '10000,2592000000',
      }]);
      const added = outcome.status === 'added' ? outcome.jobs[0] : undefined;
      expect(added).toMatchObject({ created: true, state: 'waiting' });
      const fresh = added!.id;
      // Past every block drawn around the taken number.
      expect(Number(fresh)).toBeGreaterThan(Number(first.id) + RENUMBER_MARGIN);
      expect((await q.getJob(fresh))!.data).toEqual({ n: 3 });
      expect((await q.getJob(first.id))!.data).toEqual({ n: 1 });
      // Draws from now on start past it (a second producer draws its first block).
      const later = await new Queue('taken', { store: env.store() }).add('d', {});
      expect(Number(later.id)).toBeGreaterThan(Number(fresh));
      expect((await q.getCounts()).waiting).toBe(4);
    });

    it('reports a taken number sent with reportTaken (writing nothing), and draws past a taken number it is given', async () => {
      const q = queue('reported');
      const first = await q.add('a', { n: 1 });
      const job = {
        id: first.id, name: 'c', data: '{"n":3}', opts: '{}', delay: 0, priority: 0, lifo: false, maxAttempts: 1, deadline: 0,
        removeOnComplete: '1000,86400000', removeOnFail: '10000,2592000000', reportTaken: true as const,
      };
      // A sharded queue's shard other than the first: the number came from shard 0's counter, which numbers it anew.
      const outcome = await env.store().add('reported', [job, { ...job, id: 'custom-1' }]);
      expect(outcome).toEqual({ status: 'added', jobs: [
        { created: false, id: first.id, existing: null, taken: true },
        expect.objectContaining({ created: true, id: 'custom-1', state: 'waiting' }),
      ] });
      expect((await q.getJob(first.id))!.data).toEqual({ n: 1 });
      expect((await q.getCounts()).waiting).toBe(2);
      // The counter moves past every block drawn around the taken number, then draws.
      const last = await env.store().reserveIds('reported', 4, first.id);
      expect(last).toBeGreaterThan(Number(first.id) - 1_000_000_000 + RENUMBER_MARGIN);
      expect(await env.store().reserveIds('reported', 1)).toBe(last + 1);
    });
  });

  describe('dedup', () => {
    it('a dedup key returns the existing job until it finishes, then admits a new one', async () => {
      const q = queue('dedup');
      const first = await q.add('sync', { v: 1 }, { dedup: { key: 'user-1' } });
      const second = await q.add('sync', { v: 2 }, { dedup: { key: 'user-1' } });
      expect(second.id).toBe(first.id);
      worker('dedup', async () => 'ok');
      await waitFor(async () => (await state(q, first.id)) === 'completed');
      const third = await q.add('sync', { v: 3 }, { dedup: { key: 'user-1' } });
      expect(third.id).not.toBe(first.id);
    });

    it('a dedup ttl holds the key for that long only', async () => {
      const q = queue('dedup-ttl');
      const first = await q.add('x', {}, { dedup: { key: 'k', ttl: 150 } });
      expect((await q.add('x', {}, { dedup: { key: 'k', ttl: 150 } })).id).toBe(first.id);
      await new Promise((r) => setTimeout(r, 200));
      expect((await q.add('x', {}, { dedup: { key: 'k', ttl: 150 } })).id).not.toBe(first.id);
    });
  });

  describe('order', () => {
    it('strict priority, FIFO within a priority, LIFO on request', async () => {
      const q = queue('order');
      await q.add('low-1', {}, { priority: 5 });
      await q.add('high-1', {}, { priority: 1 });
      await q.add('low-2', {}, { priority: 5 });
      await q.add('high-2', {}, { priority: 1 });
      await q.add('lifo-low', {}, { priority: 5, lifo: true });
      await q.add('top', {});
      expect(await runOrder(q, 6)).toEqual(['top', 'high-1', 'high-2', 'lifo-low', 'low-1', 'low-2']);
    });

    it('jobs put back keep their places: released ahead of newer ones, parked ones in the order they were added', async () => {
      const q = queue('places');
      await q.addBulk(['a', 'b', 'c'].map((name) => ({ name, data: {} })));
      await q.add('p', {}, { priority: 1 });
      const store = env.store();
      const [a, b] = (await store.claim('places', { count: 2, workerId: 'w', lockMs: 60_000 })).jobs;
      await store.release('places', { id: b!.id, token: b!.token! });
      await store.release('places', { id: a!.id, token: a!.token! });
      await q.add('d', {});
      expect((await q.getJobs('waiting')).map((j) => j.name)).toEqual(['a', 'b', 'c', 'd', 'p']);
      // 'r1' waits before the pause and is parked by the claim that meets it; 'r2' is parked as it is added.
      await q.add('r', { n: 1 });
      await q.pause({ names: ['r'] });
      await q.add('r', { n: 2 });
      const ran: string[] = [];
      worker('places', async (job) => void ran.push(`${job.name}${(job.data as { n?: number }).n ?? ''}`), { concurrency: 1, claimBatch: 1 });
      await waitFor(() => ran.length === 5, { message: 'the five jobs not paused' });
      expect(ran).toEqual(['a', 'b', 'c', 'd', 'p']);
      await q.resume({ names: ['r'] });
      await waitFor(() => ran.length === 7, { message: 'the resumed jobs' });
      expect(ran.slice(5)).toEqual(['r1', 'r2']);
    });

    it('pages waiting jobs in claim order, and a page resumes right while claims take the head', async () => {
      const q = queue('paging');
      await q.add('top', {}, { lifo: true });
      await q.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: `f${i}`, data: {} })));
      await q.add('later', {}, { priority: 2 });
      const store = env.store();
      const claim = async (count: number) => (await store.claim('paging', { count, workerId: 'w', lockMs: 60_000 })).jobs.map((j) => j.name);
      const seen: string[] = [];
      let after: { id: string; score: number } | undefined;
      for (let pages = 0; pages < 10; pages++) {
        const page = await store.page('paging', { index: { state: 'waiting' }, order: 'asc', limit: 2, budget: 2, ...(after && { after }) });
        seen.push(...page.jobs.map((j) => j.name));
        if (pages === 0) expect(await claim(1)).toEqual(['top']); // the cursor (f0) still waits
        if (pages === 1) expect(await claim(3)).toEqual(['f0', 'f1', 'f2']); // the cursor (f2) was taken
        if (page.done || !page.last) break;
        after = page.last;
      }
      expect(seen).toEqual(['top', 'f0', 'f1', 'f2', 'f3', 'f4', 'later']);
      expect((await q.getJobs('waiting', { start: 1, end: -1 })).map((j) => j.name)).toEqual(['f4', 'later']);
    });
  });

  describe('delays', () => {
    it('a delayed job waits, then runs after its delay', async () => {
      const q = queue('delay');
      const job = await q.add('later', {}, { delay: 150 });
      expect(job.state).toBe('delayed');
      expect((await q.getCounts()).delayed).toBe(1);
      const started: number[] = [];
      worker('delay', async () => void started.push(Date.now()));
      await waitFor(async () => (await state(q, job.id)) === 'completed');
      expect(started[0]! - job.createdAt).toBeGreaterThanOrEqual(140);
    });
  });

  describe('retries and dead letters', () => {
    it('retries with backoff until the last attempt, then dead-letters with the error and reason', async () => {
      const q = queue('retry');
      const starts: number[] = [];
      worker('retry', async (job) => {
        starts.push(Date.now());
        throw new Error(`attempt ${job.attempt}`);
      });
      const job = await q.add('x', {}, { attempts: 3, backoff: 80 });
      await waitFor(async () => (await state(q, job.id)) === 'failed');
      expect(starts).toHaveLength(3);
      expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(75);
      expect(await q.getJob(job.id)).toMatchObject({ attempt: 3, error: { message: 'attempt 3', reason: 'error', code: 'Error' } });
    });

    it('UnrecoverableError dead-letters at once; a dead letter can be re-driven', async () => {
      const q = queue('unrec');
      let calls = 0;
      worker('unrec', async () => {
        calls += 1;
        if (calls === 1) throw new UnrecoverableError('bad input');
        return 'fixed';
      });
      const job = await q.add('x', {}, { attempts: 5 });
      await waitFor(async () => (await state(q, job.id)) === 'failed');
      expect(await q.getJob(job.id)).toMatchObject({ attempt: 1, error: { reason: 'unrecoverable', message: 'bad input' } });
      expect(await q.retry(job.id)).toBe('waiting');
      await waitFor(async () => (await state(q, job.id)) === 'completed');
      expect(await q.getJob(job.id)).toMatchObject({ result: 'fixed', attempt: 1 });
    });

    it('a passed deadline dead-letters with reason deadline', async () => {
      const q = queue('deadline');
      const job = await q.add('x', {}, { deadline: Date.now() - 1 });
      worker('deadline', async () => 'ran');
      await waitFor(async () => (await state(q, job.id)) === 'failed');
      expect((await q.getJob(job.id))?.error).toMatchObject({ reason: 'deadline', code: 'DeadlineExceededError' });
    });
  });
}
