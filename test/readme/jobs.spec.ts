import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import { FlowProducer, getQueueToken, QueueModule, type Queue } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { docTable } from '../helpers/readme-table.js';
import { waitFor } from '../helpers/wait-for.js';
import { rootOptions } from '../nest/nest-harness.js';

/** The backticked names in the first column of the first table after `marker`. */
function firstColumn(marker: string): string[] {
  return docTable('docs/guide/jobs.md', marker).flatMap(([cell = '']) => [...cell.matchAll(/`([A-Za-z]+)`/g)].map((m) => m[1]!));
}

/** docs/guide/jobs.md "Job options" (defaults, the snapshot table) and "Flows" (what add returns). */
describe('README: jobs as read back', () => {
  const h = engineHarness();

  it('documents every field of a snapshot, and a dead letter says why it died in job.error.reason', async () => {
    const queue = h.queue('snapshot');
    const added = await queue.add('boom', { n: 1 }, { attempts: 1 });
    h.worker('snapshot', async () => {
      throw new Error('no luck');
    });
    await waitFor(async () => (await queue.getJob(added.id))?.state === 'failed', { message: 'the dead letter' });
    const job = (await queue.getJob(added.id))!;
    expect(firstColumn('## What `queue.getJob(id)` returns').sort()).toEqual(Object.keys(job).sort());
    expect(job).toMatchObject({ attempt: 1, maxAttempts: 1, stalled: 0, error: { message: 'no luck', reason: 'error' } });
    expect(job.finishedAt!).toBeGreaterThanOrEqual(job.startedAt!);
    expect(job.startedAt!).toBeGreaterThanOrEqual(job.createdAt);
  });

  it('flows.add() returns { job, children }, children in the order given, [] for a leaf', async () => {
    const flows = new FlowProducer({ store: h.store });
    h.queue('parents');
    h.queue('kids');
    const tree = await flows.add({
      name: 'root',
      queueName: 'parents',
      children: [
        { name: 'a', queueName: 'kids' },
        { name: 'b', queueName: 'kids', children: [{ name: 'b1', queueName: 'kids' }] },
      ],
    });
    expect(tree.job).toMatchObject({ name: 'root', state: 'waiting-children' });
    expect(tree.children.map((c) => c.job.name)).toEqual(['a', 'b']);
    expect(tree.children[0]!.children).toEqual([]);
    expect(tree.children[1]!.children.map((c) => c.job.name)).toEqual(['b1']);
    await h.queue('parents').cancel(tree.job.id);
  });

  it('reads defaultJobOptions when the queue is created, and stores them on jobs added without options', async () => {
    const defaults = { priority: 4, attempts: 2, removeOnComplete: 5 };
    const queue = h.queue('read-once', { defaultJobOptions: defaults });
    defaults.priority = 9;
    const [plain, own] = await queue.addBulk([{ name: 'x', data: 1 }, { name: 'x', data: 2, opts: { attempts: 3 } }]);
    expect(await queue.getJob(plain!.id)).toMatchObject({ priority: 4, maxAttempts: 2, data: 1 });
    expect(await queue.getJob(own!.id)).toMatchObject({ priority: 4, maxAttempts: 3, data: 2 });
    await Promise.all([queue.cancel(plain!.id), queue.cancel(own!.id)]);
  });

  it("combines forRoot's and registerQueue's defaultJobOptions per option, the job's own winning", async () => {
    const app = await Test.createTestingModule({
      imports: [
        QueueModule.forRoot({ ...rootOptions(), defaultJobOptions: { attempts: 3, priority: 5, backoff: { type: 'exponential', delay: 100, maxDelay: 1000 } } }),
        QueueModule.registerQueue({ name: 'defaults', defaultJobOptions: { priority: 7, backoff: { type: 'fixed', delay: 50 } } }),
      ],
    }).compile();
    await app.init();
    try {
      const queue = app.get<Queue>(getQueueToken('defaults'));
      const plain = await queue.add('x', null);
      // attempts from forRoot; priority and backoff (whole, not merged) from registerQueue.
      expect(plain).toMatchObject({ maxAttempts: 3, priority: 7 });
      expect(plain.opts.backoff).toEqual({ type: 'fixed', delay: 50 }); // no maxDelay from forRoot's
      const own = await queue.add('x', null, { priority: 1, attempts: 2 });
      expect(own).toMatchObject({ maxAttempts: 2, priority: 1 });
      await Promise.all([queue.cancel(plain.id), queue.cancel(own.id)]);
    } finally {
      await app.close();
    }
  });
});
