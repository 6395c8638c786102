import {
  FlowProducer, JobNotFailedError, JobNotFoundError, JobStateError, PayloadTooLargeError, QueueActiveError, UnknownOptionError, UnrecoverableError,
  type Queue,
} from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

/** Job handles (job.getState/remove/promote/changeDelay/...) and queue housekeeping (drain, obliterate). */
export function handleCases(env: ContractEnv): void {
  const { queue, worker, runOrder } = env;

  /** A job held by a claim made through the store: active, no worker running it. */
  async function claimOne(q: Queue): Promise<string> {
    const { jobs } = await env.store().claim(q.name, { count: 1, workerId: 'w', lockMs: 10_000 });
    return jobs[0]!.id;
  }

  describe('job handles', () => {
    it('re-reads the state on demand while the snapshot fields stay as read', async () => {
      const q = queue('states');
      const job = await q.add('a', 1);
      const later = await q.add('b', 2, { delay: 60_000 });
      expect(await job.getState()).toBe('waiting');
      expect(await job.isWaiting()).toBe(true);
      expect(await later.isDelayed()).toBe(true);
      await claimOne(q);
      expect(await job.getState()).toBe('active');
      expect(await job.isActive()).toBe(true);
      expect(job.state).toBe('waiting'); // the snapshot
      expect([await job.isCompleted(), await job.isFailed(), await job.isWaitingChildren()]).toEqual([false, false, false]);
      await q.cancel(later.id);
      expect(await later.isCancelled()).toBe(true);
      await later.remove();
      expect(await later.getState()).toBe('unknown');
    });

    it('remove() deletes waiting jobs of every lane, delayed and finished ones', async () => {
      const q = queue('removals');
      const plain = await q.add('plain', 1);
      const urgent = await q.add('urgent', 2, { priority: 1 });
      const newest = await q.add('newest', 3, { lifo: true });
      const tenant = await q.add('tenant', 4, { group: { id: 'g1' } });
      const later = await q.add('later', 5, { delay: 60_000 });
      await q.add('keep', 6);
      for (const job of [urgent, newest, tenant, later]) await job.remove();
      expect(await q.getCounts()).toMatchObject({ waiting: 2, delayed: 0 });
      expect(await runOrder(q, 2)).toEqual(['plain', 'keep']);
      await waitFor(async () => (await plain.getState()) === 'completed', { message: 'plain completed' });
      await plain.remove();
      expect(await q.getJob(plain.id)).toBeNull();
      await expect(plain.remove()).rejects.toThrow(JobNotFoundError);
    });

    it('refuses remove() of an active job and of an unfinished flow child, with errors naming the state', async () => {
      const q = queue('refusals');
      const running = await q.add('r', 1);
      await claimOne(q);
      const err = await running.remove().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JobStateError);
      expect(err).toMatchObject({ state: 'active', jobId: running.id, allowed: ['waiting', 'delayed', 'completed', 'failed', 'cancelled'] });
      expect((err as Error).message).toMatch(new RegExp(`job ${running.id} of queue "refusals" is active: remove\\(\\) needs a job that is waiting, delayed, completed, failed or cancelled`));
      queue('refusals-p');
      const tree = await new FlowProducer({ store: env.store() }).add({ name: 'p', queueName: 'refusals-p', children: [{ name: 'c', queueName: 'refusals', opts: { jobId: 'kid' } }] });
      await expect(tree.job.remove()).rejects.toThrow(/is waiting-children: remove\(\) needs .*; cancel it \(its unfinished children are cancelled too\)/);
      const kid = (await q.getJob('kid'))!;
      await expect(kid.remove()).rejects.toThrow(/flow child its parent waits for: cancel it instead/);
      expect(await kid.getState()).toBe('waiting');
    });

    it('promote() runs a delayed job now and refuses one that is not delayed', async () => {
      const q = queue('promotions');
      const later = await q.add('later', 1, { delay: 60_000 });
      const now = await q.add('now', 2);
      await later.promote();
      expect(await later.getState()).toBe('waiting');
      await expect(now.promote()).rejects.toThrow(/is waiting: promote\(\) needs a job that is delayed/);
      expect(await runOrder(q, 2)).toEqual(['now', 'later']);
    });

    it('changeDelay() reschedules a delayed job, delays a waiting one, and refuses a running one', async () => {
      const q = queue('delays');
      const later = await q.add('later', 1, { delay: 60_000 });
      const waiting = await q.add('waiting', 2);
      await waiting.changeDelay(60_000);
      expect(await waiting.getState()).toBe('delayed');
      const moved = (await q.getJob(waiting.id))!;
      expect(moved.runAt! - moved.createdAt).toBeGreaterThanOrEqual(59_000);
      await later.changeDelay(0);
      expect(await later.getState()).toBe('waiting');
      expect(await q.getCounts()).toMatchObject({ waiting: 1, delayed: 1 });
      await claimOne(q);
      await expect(later.changeDelay(10)).rejects.toThrow(JobStateError);
      await expect(waiting.changeDelay(-1)).rejects.toThrow(/changeDelay delay/);
    });

    it('changePriority() moves a waiting job to the end of its new priority, keeps group and LIFO order, and keeps it for a delayed job', async () => {
      const q = queue('priorities');
      await q.add('a', 1);
      const b = await q.add('b', 2);
      await q.add('c', 3, { priority: 5 });
      const d = await q.add('d', 4, { priority: 5 });
      await b.changePriority({ priority: 5 }); // after c and d (the end of priority 5)
      await d.changePriority({ priority: 0, lifo: true }); // ahead of every priority 0 job
      const e = await q.add('e', 5, { delay: 60_000 });
      await e.changePriority({ priority: 2 });
      expect(e.priority).toBe(2);
      expect((await q.getJob(e.id))!.priority).toBe(2);
      await e.promote();
      await expect(b.changePriority({ priority: -1 })).rejects.toThrow(/priority/);
      await expect(b.changePriority({ priorty: 1 } as never)).rejects.toThrow(UnknownOptionError);
      expect(await runOrder(q, 5)).toEqual(['d', 'a', 'e', 'c', 'b']);
    });

    it('changePriority() and promote() refuse a running and a finished job with JobStateError naming the states they take', async () => {
      const q = queue('priority-refusals');
      const job = await q.add('a', 1);
      await claimOne(q);
      const err = await job.changePriority({ priority: 3 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(JobStateError);
      expect(err).toMatchObject({ state: 'active', jobId: job.id, allowed: ['waiting', 'delayed'] });
      expect(job.priority).toBe(0); // a refused change does not touch the handle
      await expect(job.promote()).rejects.toMatchObject({ state: 'active', allowed: ['delayed'] });
      const done = await q.add('b', 2);
      await runOrder(q, 1);
      await waitFor(async () => done.isCompleted(), { message: 'b completed' });
      await expect(done.changePriority({ priority: 1 })).rejects.toMatchObject({ state: 'completed', allowed: ['waiting', 'delayed'] });
      await expect(done.changeDelay(1000)).rejects.toMatchObject({ state: 'completed', allowed: ['waiting', 'delayed'] });
      expect((await q.getJob(job.id))!.priority).toBe(0);
    });

    it('changePriority() orders a group\'s jobs within the group', async () => {
      const q = queue('group-priorities');
      await q.add('g1', 1, { group: { id: 'g' } });
      const late = await q.add('g2', 2, { group: { id: 'g' } });
      await late.changePriority({ priority: 0, lifo: true });
      expect(await runOrder(q, 2)).toEqual(['g2', 'g1']);
    });

    it('updateData() and updateProgress() from the producer reach a job not started, and are refused for a running one', async () => {
      const q = queue<{ step: number }>('producer-writes');
      const job = await q.add('a', { step: 1 });
      await job.updateData({ step: 2 });
      expect(job.data).toEqual({ step: 2 });
      await job.updateProgress({ pct: 10 });
      expect((await q.getJob(job.id))!).toMatchObject({ data: { step: 2 }, progress: { pct: 10 } });
      await expect(job.updateData({ step: 'x'.repeat(2 * 1024 * 1024) } as never)).rejects.toThrow(PayloadTooLargeError);
      await claimOne(q);
      await expect(job.updateData({ step: 3 })).rejects.toThrow(/is active: updateData\(\) needs a job that is waiting, delayed, waiting-children or failed; its worker holds it/);
      await expect(job.updateProgress(50)).rejects.toThrow(JobStateError);
      expect((await q.getJob(job.id))!.data).toEqual({ step: 2 });
    });

    it('a dead letter takes new data and retry(); retry() of a job that is not failed is refused', async () => {
      const q = queue<{ ok: boolean }>('fix-and-retry');
      const job = await q.add('a', { ok: false }, { attempts: 1 });
      const seen: boolean[] = [];
      worker<{ ok: boolean }>('fix-and-retry', async (j) => {
        seen.push(j.data.ok);
        if (!j.data.ok) throw new UnrecoverableError('bad');
        await j.log('ran');
      });
      await waitFor(async () => job.isFailed(), { message: 'dead letter' });
      await job.updateData({ ok: true });
      expect(await job.retry()).toBe('waiting');
      await waitFor(async () => job.isCompleted(), { message: 'completed after the fix' });
      expect(seen).toEqual([false, true]);
      expect(await job.getLogs()).toEqual(['ran']);
      await expect(job.retry()).rejects.toThrow(JobNotFailedError);
      await expect(job.retry('completed' as never)).rejects.toThrow(/job.retry state must be 'failed'/);
    });

    it('getChildrenValues() gives a flow parent its children\'s results', async () => {
      queue('values-p');
      queue('values-k');
      worker('values-k', async (job) => `${job.name}!`);
      const tree = await new FlowProducer({ store: env.store() }).add({ name: 'p', queueName: 'values-p', children: [{ name: 'a', queueName: 'values-k', opts: { jobId: 'a' } }] });
      await waitFor(async () => (await tree.job.getState()) === 'waiting', { message: 'parent waiting' });
      expect(await tree.job.getChildrenValues()).toEqual({ 'values-k:a': 'a!' });
    });
  });

  describe('queue housekeeping', () => {
    it('drain() removes waiting jobs of every lane in steps and keeps delayed, active and finished ones; drain({ delayed: true }) takes delayed too', async () => {
      const q = queue('drained');
      const bulk = Array.from({ length: 1200 }, (_, i) => ({ name: 'plain', data: i }));
      await q.addBulk(bulk);
      await q.addBulk([
        { name: 'urgent', data: 0, opts: { priority: 3 } },
        { name: 'newest', data: 0, opts: { lifo: true } },
        ...Array.from({ length: 150 }, (_, i) => ({ name: 'tenant', data: i, opts: { group: { id: `g${i % 120}` } } })),
        { name: 'muted', data: 0 },
        { name: 'later', data: 0, opts: { delay: 60_000 } },
        { name: 'dedup', data: 0, opts: { dedup: { key: 'k' } } },
      ]);
      await q.pause({ names: ['muted'] });
      await q.pauseGroup('g1');
      const running = await claimOne(q);
      expect(await q.drain()).toBe(1200 + 2 + 150 + 1 + 1 - 1);
      expect(await q.getCounts()).toMatchObject({ waiting: 0, paused: 0, delayed: 1, active: 1 });
      expect(await env.state(q, running)).toBe('active');
      // The dedup key went with its job: the same key admits a new one.
      const again = await q.add('dedup', 1, { dedup: { key: 'k' } });
      expect(again.state).toBe('waiting');
      expect(await q.drain(true)).toBe(2);
      expect(await q.getCounts()).toMatchObject({ waiting: 0, delayed: 0, active: 1 });
      await expect(q.drain({ delayd: true } as never)).rejects.toThrow(/did you mean "delayed"/);
    });

    it('drain() cancels a waiting flow child, so its parent hears', async () => {
      const kids = queue('drain-kids');
      queue('drain-parents');
      const tree = await new FlowProducer({ store: env.store() }).add({ name: 'p', queueName: 'drain-parents', children: [{ name: 'c', queueName: 'drain-kids', opts: { jobId: 'kid' } }] });
      expect(await kids.drain()).toBe(1);
      expect(await env.state(kids, 'kid')).toBe('cancelled');
      await waitFor(async () => (await tree.job.getState()) === 'failed', { message: 'the parent hears its child was cancelled' });
    });

    it('obliterate() refuses while jobs are active, then deletes the queue and all it holds; other queues stay', async () => {
      const q = queue('doomed');
      const other = queue('neighbour');
      await other.add('stays', 1);
      await q.configure({ concurrency: 3, maxWaiting: 100 });
      await q.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'n', data: i, opts: { ...(i % 3 === 0 && { group: { id: 'g' } }), ...(i % 5 === 0 && { delay: 60_000 }) } })));
      await claimOne(q);
      const err = await q.obliterate().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(QueueActiveError);
      expect(err).toMatchObject({ queue: 'doomed', active: 1 });
      expect((await q.getCounts()).waiting).toBeGreaterThan(0);
      await q.obliterate({ force: true });
      const counts = await q.getCounts();
      expect(Object.values(counts).every((n) => n === 0)).toBe(true);
      expect(await q.getLimits()).toMatchObject({ concurrency: null, maxWaiting: null });
      expect(await q.isPaused()).toBe(false);
      expect(await q.getJobs('completed')).toEqual([]);
      expect(await other.getCounts()).toMatchObject({ waiting: 1 });
      // The queue can be used again from scratch.
      await q.add('fresh', 1);
      expect((await q.getCounts()).waiting).toBe(1);
      await expect(q.obliterate({ forse: true } as never)).rejects.toThrow(/did you mean "force"/);
    });
  });
}
