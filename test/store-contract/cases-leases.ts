import { DelayedError, RateLimitedError } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

/** Leases, cancel, timeouts, shutdown and idempotent writes. */
export function leaseCases(env: ContractEnv): void {
  const { queue, worker, state } = env;
  describe('leases', () => {
    it('an expired lease is reaped and re-delivered, counted as a stall; past maxStalledCount it dead-letters', async () => {
      const q = queue('stall');
      const job = await q.add('x', {});
      // A holder that never renews or finishes: what a dead worker leaves.
      const claimed = await env.store().claim('stall', { count: 1, workerId: 'dead', lockMs: 50 });
      expect(claimed.jobs.map((j) => j.id)).toEqual([job.id]);
      await new Promise((r) => setTimeout(r, 80));
      expect(await env.store().reap('stall', 1, 10)).toEqual([{ id: job.id, state: 'waiting' }]);
      expect(await q.getJob(job.id)).toMatchObject({ state: 'waiting', stalled: 1, attempt: 0 });
      const stale = await env.store().complete('stall', { id: job.id, token: claimed.jobs[0]!.token! }, '"late"', { count: 0, workerId: 'dead', lockMs: 50 });
      expect(stale.status).toBe('lost');
      await env.store().claim('stall', { count: 1, workerId: 'dead', lockMs: 50 });
      await new Promise((r) => setTimeout(r, 80));
      expect(await env.store().reap('stall', 1, 10)).toEqual([{ id: job.id, state: 'failed' }]);
      expect((await q.getJob(job.id))?.error).toMatchObject({ reason: 'stalled', code: 'StalledError' });
    });

    it('a worker renews the leases of long jobs', async () => {
      const q = queue('renew');
      worker('renew', async () => {
        await new Promise((r) => setTimeout(r, 400));
        return 'done';
      }, { lockDuration: 150, stalledInterval: 50 });
      const job = await q.add('x', {});
      await waitFor(async () => (await state(q, job.id)) === 'completed');
      expect(await q.getJob(job.id)).toMatchObject({ stalled: 0, attempt: 1 });
    });
  });

  describe('cancel and timeouts', () => {
    it('cancels a waiting job at once and a running one through its signal', async () => {
      const q = queue('cancel');
      const waiting = await q.add('w', {}, { delay: 60_000 });
      expect(await q.cancel(waiting.id)).toBe('cancelled');
      let started = false;
      worker('cancel', (job) => {
        started = true;
        return new Promise((_, reject) => job.signal.addEventListener('abort', () => reject(job.signal.reason)));
      });
      const running = await q.add('r', {});
      await waitFor(() => started);
      expect(await q.cancel(running.id)).toBe('cancelling');
      await waitFor(async () => (await state(q, running.id)) === 'cancelled');
      expect(await q.cancel(running.id)).toBe('finished');
      expect(await q.cancel('nope')).toBe('not-found');
      expect((await q.getCounts()).cancelled).toBe(2);
    });

    it('a job past its timeout fails with JobTimeoutError', async () => {
      const q = queue('timeout');
      worker('timeout', () => new Promise(() => undefined));
      const job = await q.add('x', {}, { timeout: 100 });
      await waitFor(async () => (await state(q, job.id)) === 'failed');
      expect((await q.getJob(job.id))?.error).toMatchObject({ code: 'JobTimeoutError' });
    });
  });

  describe('idempotent writes, cancel requests, shutdown, throttling', () => {
    const fetchNone = { count: 0, workerId: 'w', lockMs: 5000 };

    it('a retried complete with the same token is answered "already"; a stale token changes nothing', async () => {
      const q = queue('idem');
      const s = env.store();
      const job = await q.add('x', {});
      const [held] = (await s.claim('idem', { count: 1, workerId: 'w', lockMs: 5000 })).jobs;
      expect(held).toMatchObject({ id: job.id, state: 'active', attempt: 1 });
      const lease = { id: job.id, token: held!.token! };
      const stale = { id: job.id, token: `${held!.token!}-old` };
      expect(await s.extend('idem', 5000, [lease, stale])).toEqual(['renewed', 'lost']);
      expect((await s.complete('idem', lease, '"r"', fetchNone)).status).toBe('completed');
      expect(await s.complete('idem', lease, '"r"', fetchNone)).toMatchObject({ status: 'already', state: 'completed' });
      expect(await s.fail('idem', stale, { retryDelay: -1, reason: 'error', message: 'm', stack: '', code: 'Error' })).toEqual({ status: 'lost' });
      expect(await s.extend('idem', 5000, [lease])).toEqual(['lost']);
      expect(await q.getJob(job.id)).toMatchObject({ state: 'completed', result: 'r' });
    });

    it('a cancel request reaches the holder through its lease renewal; its result is kept', async () => {
      const q = queue('cxl');
      const s = env.store();
      const job = await q.add('x', {});
      const [held] = (await s.claim('cxl', { count: 1, workerId: 'w', lockMs: 5000 })).jobs;
      const lease = { id: job.id, token: held!.token! };
      expect(await q.cancel(job.id)).toBe('cancelling');
      expect(await q.getJob(job.id)).toMatchObject({ state: 'active', cancelRequested: true });
      expect(await s.extend('cxl', 5000, [lease])).toEqual(['cancel-requested']);
      expect((await s.complete('cxl', lease, '"late"', fetchNone)).status).toBe('cancelled');
      expect(await q.getJob(job.id)).toMatchObject({ state: 'cancelled', result: 'late' });
    });

    it('shutdown hands a running job back to waiting without counting the attempt', async () => {
      const q = queue('shutdown');
      let started = false;
      const w = worker('shutdown', (job) => {
        started = true;
        return new Promise((_, reject) => job.signal.addEventListener('abort', () => reject(job.signal.reason)));
      });
      const job = await q.add('x', {});
      await waitFor(() => started);
      await w.close({ timeout: 50 });
      expect(await q.getJob(job.id)).toMatchObject({ state: 'waiting', attempt: 0 });
    });

    it('a handler rate-limited downstream puts its job back without spending the attempt, and the queue waits', async () => {
      const q = queue('throttle');
      const starts: number[] = [];
      const limited: number[] = [];
      const w = worker('throttle', async () => {
        starts.push(Date.now());
        if (starts.length === 1) throw new RateLimitedError(150);
        return 'ok';
      });
      w.on('rateLimited', (_job, ms) => limited.push(ms));
      const job = await q.add('x', {});
      await waitFor(async () => (await state(q, job.id)) === 'completed');
      expect(limited).toEqual([150]);
      expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(140);
      expect(await q.getJob(job.id)).toMatchObject({ attempt: 1, maxAttempts: 1 });
    });

    it('a handler that throws DelayedError runs its job again later, attempt not spent, and the queue does not wait', async () => {
      const q = queue('later');
      const starts: number[] = [];
      const delayed: number[] = [];
      const w = worker('later', async (job) => {
        if (job.name !== 'x') return 'other';
        starts.push(Date.now());
        if (starts.length === 1) throw new DelayedError(800);
        return 'ok';
      });
      w.on('delayed', (_job, ms) => delayed.push(ms));
      const job = await q.add('x', {});
      await waitFor(() => delayed.length === 1, { message: 'the delay' });
      // Only the job waits (a RateLimitedError would hold the queue): another one runs now.
      const other = await q.add('y', {});
      await waitFor(async () => (await state(q, other.id)) === 'completed', { timeout: 500, message: 'the other job done meanwhile' });
      await waitFor(async () => (await state(q, job.id)) === 'completed');
      expect(delayed).toEqual([800]);
      expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(790);
      expect(await q.getJob(job.id)).toMatchObject({ attempt: 1, maxAttempts: 1 });
    });
  });
}
