import { Job, QueueActiveError, Worker } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { docBlockAfter, docTable, docText } from '../helpers/readme-table.js';
import { waitFor } from '../helpers/wait-for.js';


/** docs/guide/jobs.md "Job handles", docs/operations/workers.md "Drain and obliterate" and the global concurrency bullet of docs/guide/throughput.md, run as written. */
describe('README: job handles and queue housekeeping', () => {
  const h = engineHarness();

  it('the Job handles example does what its comments say', async () => {
    const queue = h.queue<{ month: string }>('reports');
    expect(docBlockAfter('docs/guide/jobs.md', '## Job handles')[0]).toBe("const job = await queue.add('report', { month: '2024-05' }, { delay: 60_000 });");
    const logged: unknown[][] = [];
    const console = { log: (...args: unknown[]) => void logged.push(args) };

    const job = await queue.add('report', { month: '2024-05' }, { delay: 60_000 });
    await job.changePriority({ priority: 1 });       // keeps it for when it is due
    await job.updateData({ month: '2024-06' });      // the producer's side: no worker holds it yet
    await job.promote();                             // due now: waiting, at the end of priority 1
    console.log(await job.getState(), await job.isWaiting()); // 'waiting' true (job.state is still 'delayed')
    expect(logged).toEqual([['waiting', true]]);
    expect(job.state).toBe('delayed');
    expect(await queue.getJob(job.id)).toMatchObject({ priority: 1, data: { month: '2024-06' }, state: 'waiting' });
    await job.remove();                              // gone, with its logs
    expect(await job.getState()).toBe('unknown');
  });

  it('the methods table names only methods a Job has', () => {
    const names = docTable('docs/guide/jobs.md', '| method | what it does | the job must be |').flatMap(([cell = '']) => [...cell.matchAll(/`(\w+)\(/g)].map((m) => m[1]!));
    expect(names.length).toBeGreaterThanOrEqual(15);
    const proto = Job.prototype as unknown as Record<string, unknown>;
    expect(names.filter((n) => typeof proto[n] !== 'function')).toEqual([]);
  });

  it('the Drain and obliterate example drains waiting, then delayed jobs, and obliterates only without running jobs unless forced', async () => {
    const queue = h.queue<number>('housekept');
    expect(docBlockAfter('docs/operations/workers.md', '## Drain and obliterate')[0]).toBe('const removed = await queue.drain();          // every waiting job (in steps of 500); delayed ones stay');
    await queue.addBulk(Array.from({ length: 1200 }, (_, i) => ({ name: 'n', data: i, opts: i % 4 === 0 ? { delay: 60_000 } : i % 4 === 1 ? { priority: 2 } : {} })));

    const removed = await queue.drain();          // every waiting job (in steps of 500); delayed ones stay
    expect(removed).toBe(900);
    await queue.drain({ delayed: true });         // waiting and delayed (BullMQ's drain(true) works too)
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, delayed: 0 });

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = new Worker<number>('housekept', () => gate, { store: h.store });
    await queue.add('n', 1);
    await waitFor(async () => (await queue.getCounts()).active === 1, { message: 'one running' });
    await expect(queue.obliterate()).rejects.toThrow(QueueActiveError);
    await queue.obliterate({ force: true });      // even then: their workers lose them
    release();
    await worker.close();
    expect(Object.values(await queue.getCounts()).every((n) => n === 0)).toBe(true);
  });

  it('the global concurrency bullet: set, read, remove', async () => {
    const queue = h.queue('capped');
    expect(docText('docs/guide/throughput.md')).toContain('`await queue.setGlobalConcurrency(10)`');
    await queue.setGlobalConcurrency(10);
    expect(await queue.getGlobalConcurrency()).toBe(10);
    expect(await queue.getLimits()).toMatchObject({ concurrency: 10 });
    await queue.removeGlobalConcurrency();
    expect(await queue.getGlobalConcurrency()).toBeNull();
  });
});
