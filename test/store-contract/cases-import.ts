import type { ImportedJob } from '../../lib/store/index.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

const DAY = 24 * 3600_000;

/** A job as lib/migrate would import it; `over` sets what a case is about. */
function imported(id: string, over: Partial<ImportedJob> = {}): ImportedJob {
  return {
    id, name: 'job', data: JSON.stringify({ id }), opts: '{}', state: 'waiting', createdAt: Date.now() - DAY, runAt: Date.now() - DAY,
    attempt: 0, maxAttempts: 1, priority: 0, lifo: false, removeOnComplete: '-1,-1', removeOnFail: '-1,-1', ...over,
  };
}

/** Store.importJobs: jobs from another system enter with their history, once. */
export function importCases(env: ContractEnv): void {
  const { queue, worker } = env;
  const store = () => {
    const s = env.store();
    if (!s.importJobs) throw new Error('this store cannot import');
    return { s, importJobs: s.importJobs.bind(s) };
  };

  describe('importJobs', () => {
    it('keeps attempts made, creation time and order; runs them after the jobs already waiting', async () => {
      const q = queue<unknown>('imp-order');
      await q.add('here-first', null);
      const { importJobs } = store();
      const created = Date.now() - 3 * DAY;
      expect(await importJobs('imp-order', [
        imported('b:1', { name: 'one', attempt: 2, maxAttempts: 5, createdAt: created, lifo: true }),
        imported('b:2', { name: 'two' }),
        imported('b:3', { name: 'urgent-later', priority: 3 }),
      ])).toEqual(['imported', 'imported', 'imported']);
      const one = (await q.getJob('b:1'))!;
      expect(one).toMatchObject({ state: 'waiting', attempt: 2, maxAttempts: 5, createdAt: created, name: 'one' });
      expect((await q.getJob('b:3'))!.priority).toBe(3);
      const attempts: number[] = [];
      worker('imp-order', async (job) => void (job.id === 'b:1' && attempts.push(job.attempt)));
      await waitFor(async () => (await q.getCounts()).completed === 4, { message: 'four jobs ran' });
      // The third attempt: two were made before the import.
      expect(attempts).toEqual([3]);
    });

    it('runs jobs in the order given', async () => {
      const q = queue<unknown>('imp-seq');
      const { importJobs } = store();
      await importJobs('imp-seq', [imported('x:1', { name: 'first' }), imported('x:2', { name: 'second', lifo: true }), imported('x:3', { name: 'third' })]);
      expect(await env.runOrder(q, 3)).toEqual(['first', 'second', 'third']);
    });

    it('keeps a delayed job due when it was due', async () => {
      const q = queue<unknown>('imp-delayed');
      const { importJobs } = store();
      const due = Date.now() + 30 * DAY;
      await importJobs('imp-delayed', [imported('d:1', { state: 'delayed', runAt: due })]);
      expect(await q.getJob('d:1')).toMatchObject({ state: 'delayed', runAt: due });
      expect((await q.getCounts()).delayed).toBe(1);
    });

    it('writes a dead letter with its reason, error, stack and attempts; it can be re-driven', async () => {
      const q = queue<unknown>('imp-dead');
      const { importJobs } = store();
      const finished = Date.now() - 2 * DAY;
      await importJobs('imp-dead', [imported('f:1', {
        name: 'charge', state: 'failed', attempt: 3, maxAttempts: 3, finishedAt: finished,
        error: { reason: 'error', message: 'card declined', stack: 'Error: card declined\n    at charge (pay.js:1:1)', code: 'Error' },
      })]);
      const dead = (await q.getJob('f:1'))!;
      expect(dead).toMatchObject({ state: 'failed', attempt: 3, finishedAt: finished });
      expect(dead.error).toMatchObject({ message: 'card declined', reason: 'error', code: 'Error' });
      expect(dead.error!.stack).toContain('at charge');
      const page = await q.getFailed({ reason: 'error', name: 'charge' });
      expect(page.jobs.map((j) => j.id)).toEqual(['f:1']);
      worker('imp-dead', async () => 'paid');
      expect(await q.retry('f:1')).toBe('waiting');
      await waitFor(async () => (await q.getJob('f:1'))?.state === 'completed', { message: 'the re-driven dead letter ran' });
    });

    it('imports each id once, even after the job is gone', async () => {
      const q = queue<unknown>('imp-once');
      const { importJobs } = store();
      await q.add('mine', null, { jobId: 'taken' });
      expect(await importJobs('imp-once', [imported('taken'), imported('c:1', { state: 'completed', finishedAt: Date.now(), result: '"ok"' })])).toEqual(['exists', 'imported']);
      expect(await q.getJob('c:1')).toMatchObject({ state: 'completed', result: 'ok' });
      expect(await q.remove('c:1')).toBe(true);
      expect(await importJobs('imp-once', [imported('c:1', { state: 'completed', finishedAt: Date.now(), result: '"ok"' })])).toEqual(['exists']);
      expect(await q.getJob('c:1')).toBeNull();
      expect((await q.getCounts()).waiting).toBe(1);
    });

    it('links a flow: the parent waits for its imported child and sees every result', async () => {
      const parents = queue<unknown>('imp-p');
      queue('imp-k');
      const { importJobs } = store();
      await importJobs('imp-p', [imported('p:1', {
        name: 'parent', state: 'waiting-children', children: [{ queue: 'imp-k', id: 'k:2' }],
        results: [{ child: { queue: 'imp-k', id: 'k:1' }, result: '"done before"' }],
      })]);
      await importJobs('imp-k', [imported('k:2', { name: 'child', parent: { queue: 'imp-p', id: 'p:1', policy: 'fail' } })]);
      expect((await parents.getJob('p:1'))!.state).toBe('waiting-children');
      worker('imp-k', async () => 'done now');
      const seen: unknown[] = [];
      worker('imp-p', async (job) => void seen.push(await job.getChildrenResults()));
      await waitFor(() => seen.length === 1, { message: 'the imported parent ran' });
      expect(seen[0]).toEqual({ 'imp-k:k:1': 'done before', 'imp-k:k:2': 'done now' });
    });
  });
}
