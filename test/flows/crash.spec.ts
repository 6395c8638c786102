import { FlowProducer } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { sweepOutbox } from '../helpers/redis-access.js';

describe('flows: a worker dies between the child outcome and the parent move', () => {
  const h = engineHarness();

  it('leaves the notification in the outbox, and the reaper sweep delivers it: the parent runs once', async () => {
    const parents = h.queue('crash-parent');
    const kids = h.queue('crash-kids');
    const flows = new FlowProducer({ store: h.store });
    const tree = await flows.add({ name: 'p', queueName: 'crash-parent', children: [{ name: 'k', queueName: 'crash-kids', opts: { jobId: 'only' } }] });

    // Step 1 only: the child's complete script runs (as the dying worker's last call); step 2 never does.
    const [child] = (await h.store.claim('crash-kids', { count: 1, workerId: 'doomed', lockMs: 10_000 })).jobs;
    const done = await h.store.complete('crash-kids', { id: child!.id, token: child!.token! }, '{"size":42}', { count: 0, workerId: 'doomed', lockMs: 10_000 });
    expect(done.status).toBe('completed');

    // The outcome is recorded and queued, the parent has not moved: verify() names the stuck notification.
    expect(await kids.getJob('only')).toMatchObject({ state: 'completed' });
    expect(await parents.getJob(tree.job.id)).toMatchObject({ state: 'waiting-children' });
    expect(await kids.verify()).toEqual([expect.stringContaining('undelivered parent notifications of only')]);

    // A worker of the child's queue starts: its reaper sweeps the outbox and the parent moves on.
    let runs = 0;
    h.worker('crash-parent', async (job) => {
      runs += 1;
      return job.getChildrenResults();
    });
    h.worker('crash-kids', () => 'unused');
    await expect(tree.job.waitUntilFinished({ timeout: 10_000 })).resolves.toEqual({ 'crash-kids:only': { size: 42 } });
    expect(runs).toBe(1);
    await waitFor(async () => (await kids.verify()).length === 0, { message: 'the outbox to be acknowledged' });
  });

  it('a dead-lettered child left in the outbox fails its parent once swept', async () => {
    const parents = h.queue('crash2-parent');
    h.queue('crash2-kids');
    const flows = new FlowProducer({ store: h.store });
    const tree = await flows.add({ name: 'p', queueName: 'crash2-parent', children: [{ name: 'k', queueName: 'crash2-kids' }] });
    const [child] = (await h.store.claim('crash2-kids', { count: 1, workerId: 'doomed', lockMs: 10_000 })).jobs;
    await h.store.fail('crash2-kids', { id: child!.id, token: child!.token! }, { retryDelay: -1, reason: 'error', message: 'boom', stack: '', code: 'Error' });
    expect(await parents.getJob(tree.job.id)).toMatchObject({ state: 'waiting-children' });
    expect(await sweepOutbox(h.store, 'crash2-kids', 100)).toBe(1);
    expect(await parents.getJob(tree.job.id)).toMatchObject({ state: 'failed', error: { reason: 'child-failed', code: 'ChildFailedError' } });
    expect(await sweepOutbox(h.store, 'crash2-kids', 100)).toBe(0);
  });
});
