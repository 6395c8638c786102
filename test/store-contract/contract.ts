import { FlowProducer, Queue, UnrecoverableError, Worker, type ChildFailurePolicy, type Handler, type Store, type WorkerOptions } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';

type WorkerExtra = Omit<WorkerOptions, 'store'>;

/**
 * The Store contract: what a user of Queue, Worker and FlowProducer can
 * observe, the same on every store. Each store's spec file runs it
 * (redis.spec.ts, memory.spec.ts). Time is real here, so the same assertions
 * hold on Redis; memory-clock.spec.ts covers the controllable clock.
 */
export function storeContract(label: string, open: () => Promise<Store>, close: (store: Store) => Promise<void>): void {
  describe(`Store contract: ${label}`, () => {
    let store: Store;
    const queues: Queue[] = [];
    const workers: Worker[] = [];

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.close({ timeout: 2000 })));
      const problems = (await Promise.all(queues.splice(0).map((q) => q.verify()))).flat();
      await close(store);
      expect(problems).toEqual([]);
    });

    const queue = <D = unknown, R = unknown>(name: string): Queue<D, R> => {
      const q = new Queue<D, R>(name, { store });
      queues.push(q as unknown as Queue);
      return q;
    };
    const worker = <D = unknown, R = unknown>(name: string, handler: Handler<D, R>, options: WorkerExtra = {}): Worker<D, R> => {
      const w = new Worker<D, R>(name, handler, { store, ...options });
      workers.push(w as unknown as Worker);
      return w;
    };
    const state = async (q: Queue, id: string) => (await q.getJob(id))?.state;
    /** Runs the queue's waiting jobs one at a time and returns their names in start order. */
    const runOrder = async (q: Queue, n: number, options: WorkerExtra = {}): Promise<string[]> => {
      const order: string[] = [];
      worker(q.name, async (job) => void order.push(job.name), { concurrency: 1, claimBatch: 1, ...options });
      await waitFor(() => order.length === n, { message: `${n} jobs to run` });
      return order;
    };

    describe('ids', () => {
      it('generates unique sortable ids, keeps a caller id and returns the existing job for it', async () => {
        const q = queue('ids');
        const a = await q.add('a', { n: 1 });
        const b = await q.add('b', { n: 2 });
        expect(a.id).not.toEqual(b.id);
        expect([a.id, b.id].sort()).toEqual([a.id, b.id]);
        const mine = await q.add('c', { n: 3 }, { jobId: 'order-42' });
        expect(mine).toMatchObject({ id: 'order-42', state: 'waiting', data: { n: 3 } });
        const again = await q.add('c', { n: 4 }, { jobId: 'order-42' });
        expect(again).toMatchObject({ id: 'order-42', data: { n: 3 } });
        expect((await q.getCounts()).waiting).toBe(3);
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

    describe('leases', () => {
      it('an expired lease is reaped and re-delivered, counted as a stall; past maxStalledCount it dead-letters', async () => {
        const q = queue('stall');
        const job = await q.add('x', {});
        // A holder that never renews or finishes: what a dead worker leaves.
        const claimed = await store.claim('stall', { count: 1, workerId: 'dead', lockMs: 50 });
        expect(claimed.jobs.map((j) => j.id)).toEqual([job.id]);
        await new Promise((r) => setTimeout(r, 80));
        expect(await store.reap('stall', 1, 10)).toEqual([{ id: job.id, state: 'waiting' }]);
        expect(await q.getJob(job.id)).toMatchObject({ state: 'waiting', stalled: 1, attempt: 0 });
        const stale = await store.complete('stall', { id: job.id, token: claimed.jobs[0]!.token! }, '"late"', { count: 0, workerId: 'dead', lockMs: 50 });
        expect(stale.status).toBe('lost');
        await store.claim('stall', { count: 1, workerId: 'dead', lockMs: 50 });
        await new Promise((r) => setTimeout(r, 80));
        expect(await store.reap('stall', 1, 10)).toEqual([{ id: job.id, state: 'failed' }]);
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

    describe('flows', () => {
      async function flow(policy: ChildFailurePolicy | undefined, label: string) {
        const parents = queue(`${label}-p`);
        const kids = queue(`${label}-k`);
        worker(`${label}-k`, async (job) => {
          if (job.name === 'bad') throw new UnrecoverableError('bad input');
          return 'good';
        });
        const saw: unknown[] = [];
        worker(`${label}-p`, async (job) => {
          saw.push({ results: await job.getChildrenResults(), failures: Object.keys(await job.getChildrenFailures()) });
          return 'parent done';
        });
        const tree = await new FlowProducer({ store }).add({
          name: 'parent',
          queueName: `${label}-p`,
          children: [
            { name: 'bad', queueName: `${label}-k`, opts: { jobId: 'bad' }, ...(policy && { failurePolicy: policy }) },
            { name: 'good', queueName: `${label}-k`, opts: { jobId: 'good' } },
          ],
        });
        return { parents, kids, tree, saw };
      }

      it('a parent runs after its children and sees their results', async () => {
        const parents = queue('ok-p');
        queue('ok-k');
        worker('ok-k', async (job) => `${job.name}!`);
        worker('ok-p', async (job) => job.getChildrenResults());
        const tree = await new FlowProducer({ store }).add({
          name: 'p',
          queueName: 'ok-p',
          children: [{ name: 'a', queueName: 'ok-k', opts: { jobId: 'a' } }, { name: 'b', queueName: 'ok-k', opts: { jobId: 'b' } }],
        });
        expect(tree.job.state).toBe('waiting-children');
        await expect(tree.job.waitUntilFinished({ timeout: 5000 })).resolves.toEqual({ 'ok-k:a': 'a!', 'ok-k:b': 'b!' });
        expect((await parents.getCounts()).completed).toBe(1);
      });

      it('fail (default): a dead child dead-letters the parent', async () => {
        const { parents, tree } = await flow(undefined, 'pf');
        await expect(tree.job.waitUntilFinished({ timeout: 5000 })).rejects.toMatchObject({ reason: 'child-failed' });
        expect((await parents.getJob(tree.job.id))?.error?.message).toMatch(/child bad of queue pf-k died \(unrecoverable\): bad input/);
      });

      it.each([
        ['continueParentOnFailure', 'pc'],
        ['ignoreDependencyOnFailure', 'pi'],
      ] as const)('%s: the parent runs and sees the failure', async (policy, label) => {
        const { tree, saw } = await flow(policy, label);
        await expect(tree.job.waitUntilFinished({ timeout: 5000 })).resolves.toBe('parent done');
        expect(saw).toHaveLength(1);
        expect(saw[0]).toMatchObject({ failures: [`${label}-k:bad`] });
      });

      it('removeDependencyOnFailure: the parent runs without the dead child', async () => {
        const { tree, saw } = await flow('removeDependencyOnFailure', 'pr');
        await expect(tree.job.waitUntilFinished({ timeout: 5000 })).resolves.toBe('parent done');
        expect(saw).toEqual([{ results: { 'pr-k:good': 'good' }, failures: [] }]);
      });

      it('a duplicate id anywhere in a flow keeps nothing of it', async () => {
        const kids = queue('dup-k');
        queue('dup-p');
        await kids.add('x', {}, { jobId: 'taken' });
        await expect(new FlowProducer({ store }).add({
          name: 'p', queueName: 'dup-p', children: [{ name: 'c', queueName: 'dup-k', opts: { jobId: 'taken' } }],
        })).rejects.toMatchObject({ name: 'DuplicateJobIdError' });
        expect((await store.getCounts('dup-p'))['waiting-children']).toBe(0);
      });
    });

    describe('groups', () => {
      it('a group cap holds one tenant back without starving the others (round-robin)', async () => {
        const q = queue('groups');
        await q.configure({ groupConcurrency: 1 });
        for (let i = 0; i < 3; i++) await q.add(`a${i}`, {}, { group: { id: 'A' } });
        await q.add('b0', {}, { group: { id: 'B' } });
        await q.add('c0', {}, { group: { id: 'C' } });
        const claimed = await store.claim('groups', { count: 10, workerId: 'w', lockMs: 5000 });
        expect(claimed.jobs.map((j) => j.name).sort()).toEqual(['a0', 'b0', 'c0']);
        expect(await q.getGroup('A')).toMatchObject({ waiting: 2, active: 1 });
        const a0 = claimed.jobs.find((j) => j.name === 'a0')!;
        const next = await store.complete('groups', { id: a0.id, token: a0.token! }, 'null', { count: 5, workerId: 'w', lockMs: 5000 });
        expect(next.next.map((j) => j.name)).toEqual(['a1']);
        for (const j of [...claimed.jobs.filter((j) => j !== a0), ...next.next]) {
          await store.complete('groups', { id: j.id, token: j.token! }, 'null', { count: 0, workerId: 'w', lockMs: 5000 });
        }
      });

      it('a paused group starts nothing until resumed; others go on', async () => {
        const q = queue('gpause');
        await q.pauseGroup('A');
        await q.add('a', {}, { group: { id: 'A' } });
        await q.add('b', {}, { group: { id: 'B' } });
        const order: string[] = [];
        worker('gpause', async (job) => void order.push(job.name));
        await waitFor(() => order.length === 1);
        expect(order).toEqual(['b']);
        await q.resumeGroup('A');
        await waitFor(() => order.length === 2);
      });

      it('maxWaitingPerGroup refuses a full group with QueueFullError', async () => {
        const q = queue('gfull');
        await q.configure({ maxWaitingPerGroup: 1 });
        await q.add('a', {}, { group: { id: 'A' } });
        await expect(q.add('a', {}, { group: { id: 'A' } })).rejects.toMatchObject({ name: 'QueueFullError' });
        await q.add('b', {}, { group: { id: 'B' } });
      });
    });

    describe('rate limits and backpressure', () => {
      it('a queue rate limit admits max starts per window and says how long to wait', async () => {
        const q = queue('rate');
        await q.configure({ rateLimit: { max: 2, duration: 1000 } });
        for (let i = 0; i < 3; i++) await q.add(`j${i}`, {});
        const first = await store.claim('rate', { count: 10, workerId: 'w', lockMs: 5000 });
        expect(first.jobs).toHaveLength(2);
        const second = await store.claim('rate', { count: 10, workerId: 'w', lockMs: 5000 });
        expect(second.jobs).toHaveLength(0);
        expect(second.waitMs).toBeGreaterThan(900);
        expect(second.waitMs).toBeLessThanOrEqual(1000);
        expect(await q.getLimits()).toMatchObject({ rateLimit: { max: 2, duration: 1000 } });
        for (const j of first.jobs) await store.complete('rate', { id: j.id, token: j.token! }, 'null', { count: 0, workerId: 'w', lockMs: 5000 });
        await q.cancel((await q.getJobs('waiting'))[0]!.id);
      });

      it('maxWaiting refuses a batch whole', async () => {
        const q = queue('full');
        await q.configure({ maxWaiting: 2 });
        await q.add('a', {});
        await expect(q.addBulk([{ name: 'b', data: {} }, { name: 'c', data: {} }])).rejects.toMatchObject({ name: 'QueueFullError', limit: 2 });
        expect((await q.getCounts()).waiting).toBe(1);
      });
    });

    describe('pause', () => {
      it('a paused queue starts nothing; its waiting jobs count as paused until resumed', async () => {
        const q = queue('pause');
        await q.pause();
        await q.add('x', {});
        expect(await q.getCounts()).toMatchObject({ waiting: 0, paused: 1 });
        const ran: string[] = [];
        worker('pause', async (job) => void ran.push(job.name));
        expect((await store.claim('pause', { count: 1, workerId: 'p', lockMs: 1000 })).jobs).toEqual([]);
        await q.resume();
        await waitFor(() => ran.length === 1);
      });

      it('a paused job name is parked and comes back in order when resumed', async () => {
        const q = queue('pnames');
        await q.pause({ names: ['report'] });
        await q.add('report', { n: 1 });
        await q.add('mail', {});
        await q.add('report', { n: 2 });
        expect(await q.getCounts()).toMatchObject({ waiting: 1, paused: 2 });
        const ran: string[] = [];
        worker('pnames', async (job) => void ran.push(`${job.name}${(job.data as { n?: number }).n ?? ''}`), { concurrency: 1 });
        await waitFor(() => ran.length === 1);
        await q.resume({ names: ['report'] });
        await waitFor(() => ran.length === 3);
        expect(ran).toEqual(['mail', 'report1', 'report2']);
      });
    });

    describe('name caps', () => {
      it('nameConcurrency caps one job name in a worker while others run', async () => {
        const q = queue('caps');
        let running = 0;
        let most = 0;
        const done: string[] = [];
        worker('caps', async (job) => {
          if (job.name === 'heavy') {
            running += 1;
            most = Math.max(most, running);
            await new Promise((r) => setTimeout(r, 30));
            running -= 1;
          }
          done.push(job.name);
        }, { concurrency: 4, nameConcurrency: { heavy: 1 } });
        await q.addBulk([...Array(4)].map(() => ({ name: 'heavy', data: {} })).concat([{ name: 'light', data: {} }]));
        await waitFor(() => done.length === 5);
        expect(most).toBe(1);
      });
    });

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
        expect(await store.getLogs('misc', kept.id)).toEqual(['half way']);
        expect(await store.progress('misc', { id: kept.id, token: 'stale' }, '1')).toBe(false);
      });
    });
  });
}
