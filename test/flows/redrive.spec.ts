import { ChildrenPendingError, FlowProducer, JobNotFailedError, JobNotFinishedError, JobNotFoundError } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

describe('flows: re-driving a dead child, removing parents', () => {
  const h = engineHarness();

  it('re-driving the dead child resumes the parent it failed, which then runs once', async () => {
    const parents = h.queue('rd-p');
    const kids = h.queue('rd-k');
    const flows = new FlowProducer({ store: h.store });
    let healthy = false;
    h.worker('rd-k', async () => {
      if (!healthy) throw new Error('downstream down');
      return 'fixed';
    });
    let parentRuns = 0;
    h.worker('rd-p', async (job) => {
      parentRuns += 1;
      return job.getChildrenResults();
    });
    const tree = await flows.add({ name: 'p', queueName: 'rd-p', children: [{ name: 'k', queueName: 'rd-k', opts: { jobId: 'flaky', attempts: 2 } }] });
    await waitFor(async () => (await parents.getJob(tree.job.id))?.state === 'failed', { message: 'the parent to be failed by its child' });
    expect(await kids.getJob('flaky')).toMatchObject({ state: 'failed', attempt: 2 });

    // Removing the failed parent is refused: its child is still pending.
    await expect(parents.remove(tree.job.id)).rejects.toThrow(ChildrenPendingError);

    healthy = true;
    expect(await kids.retry('flaky')).toBe('waiting');
    await expect(tree.job.waitUntilFinished({ timeout: 5000 })).resolves.toEqual({ 'rd-k:flaky': 'fixed' });
    expect(parentRuns).toBe(1);
    expect(await kids.getJob('flaky')).toMatchObject({ state: 'completed', attempt: 1 });
    // Finished with nothing pending: now the parent can go.
    expect(await parents.remove(tree.job.id)).toBe(true);
    expect(await parents.getJob(tree.job.id)).toBeNull();
    expect(await tree.job.getChildrenResults()).toEqual({});
  });

  it('retry() refuses jobs that are not dead letters, with a typed error', async () => {
    const queue = h.queue('rd-plain');
    const job = await queue.add('x', {});
    await expect(queue.retry(job.id)).rejects.toThrow(JobNotFailedError);
    await expect(queue.retry('nope')).rejects.toThrow(JobNotFoundError);
    await expect(queue.remove(job.id)).rejects.toThrow(JobNotFinishedError);
    expect(await queue.remove('nope')).toBe(false);
    expect(await queue.cancel(job.id)).toBe('cancelled');
    expect(await queue.remove(job.id)).toBe(true);
  });

  it('retry() of a plain dead letter runs it again with attempts reset', async () => {
    const queue = h.queue('rd-dl');
    let calls = 0;
    h.worker('rd-dl', async () => {
      calls += 1;
      if (calls === 1) throw new Error('first time fails');
      return calls;
    });
    const job = await queue.add('x', {});
    await expect(job.waitUntilFinished({ timeout: 5000 })).rejects.toThrow(/first time fails/);
    await queue.retry(job.id);
    await expect(queue.waitFor(job.id, { timeout: 5000 })).resolves.toBe(2);
  });
});
