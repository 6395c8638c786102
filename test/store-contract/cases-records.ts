import { waitFor } from '../helpers/wait-for.js';
import type { Queue } from '../../lib/index.js';
import type { ContractEnv } from './contract.js';

/** What stays of a job: retention, progress, logs, reads. */
export function recordCases(env: ContractEnv): void {
  const { queue, worker, state } = env;
  describe('retention, progress, logs', () => {
    it('removeOnComplete drops finished jobs; progress and logs are kept for the holder only', async () => {
      const q = queue('misc');
      worker('misc', async (job) => {
        await job.updateProgress(50);
        await job.log('half way');
        return 'ok';
      });
      const kept = await q.add('keep', {});
      const gone = await q.add('drop', {}, { removeOnComplete: true });
      await waitFor(async () => (await state(q, kept.id)) === 'completed' && (await q.getJob(gone.id)) === null);
      expect(await q.getJob(kept.id)).toMatchObject({ progress: 50, result: 'ok' });
      expect(await env.store().getLogs('misc', kept.id)).toEqual(['half way']);
      expect(await env.store().progress('misc', { id: kept.id, token: 'stale' }, '1')).toBe(false);
    });

    it('updateData: the next attempt starts from the payload the holder wrote; a stale token writes nothing', async () => {
      const q = queue<{ step: number }>('steps');
      const seen: { step: number }[] = [];
      const after: { step: number }[] = [];
      worker<{ step: number }>('steps', async (job) => {
        seen.push(job.data);
        if (job.data.step === 0) {
          await job.updateData({ step: 1 });
          after.push(job.data);
          throw new Error('crashed after step 0');
        }
        return job.data.step;
      });
      const job = await q.add('step', { step: 0 }, { attempts: 2, backoff: 1 });
      await waitFor(async () => (await state(q as Queue, job.id)) === 'completed', { message: 'the retry completed' });
      expect(seen).toEqual([{ step: 0 }, { step: 1 }]);
      expect(after).toEqual([{ step: 1 }]);
      expect(await q.getJob(job.id)).toMatchObject({ data: { step: 1 }, result: 1, attempt: 2 });
      expect(await env.store().updateData('steps', { id: job.id, token: 'stale' }, '{"step":9}')).toBe(false);
      expect((await q.getJob(job.id))?.data).toEqual({ step: 1 });
    });
  });

  describe('trace context', () => {
    it('stores the producer context a job was added with and hands it to the claim and to reads', async () => {
      const q = queue('traced');
      const s = env.store();
      const carrier = JSON.stringify({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
      const { job } = await q.prepare({ name: 'x', data: 1 }, '', carrier);
      const plain = (await q.prepare({ name: 'y', data: 2 }, '', undefined)).job;
      await s.add('traced', [job, plain]);
      expect((await s.getJob('traced', job.id))?.traceContext).toBe(carrier);
      expect((await s.getJob('traced', plain.id))?.traceContext).toBeUndefined();
      const claimed = await s.claim('traced', { count: 2, workerId: 'w', lockMs: 30_000, nameRoom: [] });
      expect(claimed.jobs.map((r) => [r.id, r.traceContext])).toEqual([[job.id, carrier], [plain.id, undefined]]);
      for (const r of claimed.jobs) await s.release('traced', { id: r.id, token: r.token! });
    });
  });

  describe('reads and removal', () => {
    it('counts every state, lists ids oldest first, removes only finished jobs', async () => {
      const q = queue('reads');
      const s = env.store();
      const a = await q.add('a', {});
      const b = await q.add('b', {});
      await q.add('later', {}, { delay: 60_000 });
      const c = await q.add('c', {});
      expect((await q.getJobs('waiting')).map((j) => j.id)).toEqual([a.id, b.id, c.id]);
      await expect(q.remove(a.id)).rejects.toMatchObject({ name: 'JobNotFinishedError' });
      const [held] = (await s.claim('reads', { count: 1, workerId: 'w', lockMs: 5000 })).jobs;
      await s.complete('reads', { id: held!.id, token: held!.token! }, '1', { count: 0, workerId: 'w', lockMs: 5000 });
      await q.cancel(b.id);
      expect(await q.getCounts()).toEqual({ waiting: 1, paused: 0, delayed: 1, active: 0, completed: 1, failed: 0, cancelled: 1, 'waiting-children': 0 });
      expect(await q.remove(a.id)).toBe(true);
      expect(await q.remove(a.id)).toBe(false);
      expect(await q.getJob(a.id)).toBeNull();
    });

    it('removeOnComplete keeps the newest n; waitFor resolves the result or rejects the failure', async () => {
      const q = queue('keep');
      worker('keep', async (job) => {
        if (job.name === 'bad') throw new Error('no');
        return job.name;
      }, { concurrency: 1 });
      const jobs = await q.addBulk(['j1', 'j2', 'j3'].map((name) => ({ name, data: {}, opts: { removeOnComplete: 2 } })));
      await expect(q.waitFor(jobs[2]!.id, { timeout: 5000 })).resolves.toBe('j3');
      await waitFor(async () => (await q.getCounts()).completed === 2 && (await q.getJob(jobs[0]!.id)) === null);
      const bad = await q.add('bad', {});
      await expect(q.waitFor(bad.id, { timeout: 5000 })).rejects.toMatchObject({ name: 'JobFailedError' });
    });

    it('count retention keeps up with a completion write of more jobs than one trim used to drop', async () => {
      const q = queue('keep-many');
      const s = env.store();
      const total = 300;
      await q.addBulk(Array.from({ length: total }, (_, i) => ({ name: 'j', data: i, opts: { removeOnComplete: 10 } })));
      const fetch = { count: 0, workerId: 'w', lockMs: 10_000 };
      const claimed = (await s.claim('keep-many', { ...fetch, count: total })).jobs;
      expect(claimed).toHaveLength(total);
      // Two writes of 150 (over the old bound of 100 per trim): each leaves exactly the newest 10.
      for (const part of [claimed.slice(0, 150), claimed.slice(150)]) {
        const outcome = await s.completeMany('keep-many', part.map((r) => ({ lease: { id: r.id, token: r.token! }, result: 'null' })), fetch);
        expect(outcome.statuses.every((st) => st.status === 'completed')).toBe(true);
        expect((await q.getCounts()).completed).toBe(10);
      }
      const kept = (await q.getJobs('completed', { start: 0, end: -1 })).map((j) => j.id).sort();
      expect(kept).toEqual(claimed.slice(-10).map((r) => r.id).sort());
    });

    it('job.once records a side effect for its ttl', async () => {
      const q = queue('once');
      const s = env.store();
      await s.setOnce('once', 'mail-1', '"sent"', 150);
      expect(await s.getOnce('once', 'mail-1')).toBe('"sent"');
      expect(await s.getOnce('once', 'mail-2')).toBeNull();
      await new Promise((r) => setTimeout(r, 200));
      expect(await s.getOnce('once', 'mail-1')).toBeNull();
      expect(q.name).toBe('once');
    });
  });
}
