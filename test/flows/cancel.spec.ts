import { FlowProducer, type ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';

describe('flows: cancelling a parent', () => {
  const h = engineHarness();

  it('cancels its unfinished children down the tree (running ones through their worker), keeps finished ones', async () => {
    const parents = h.queue('cx-p');
    const mids = h.queue('cx-m');
    const kids = h.queue('cx-k');
    const flows = new FlowProducer({ store: h.store });
    const worker = h.worker('cx-k', (job) =>
      job.name === 'quick'
        ? 'done'
        : new Promise((_, reject) => job.signal.addEventListener('abort', () => reject(job.signal.reason))),
    { concurrency: 2 });
    const tree = await flows.add({
      name: 'p',
      queueName: 'cx-p',
      children: [
        { name: 'quick', queueName: 'cx-k', opts: { jobId: 'quick' } },
        { name: 'long', queueName: 'cx-k', opts: { jobId: 'long' } },
        { name: 'm', queueName: 'cx-m', opts: { jobId: 'mid' }, children: [{ name: 'later', queueName: 'cx-k', opts: { jobId: 'later', delay: 60_000 } }] },
      ],
    });
    await waitFor(async () => (await kids.getJob('quick'))?.state === 'completed' && (await kids.getJob('long'))?.state === 'active');
    const cancelled = nextEvent<[ActiveJob]>(worker, 'cancelled');

    expect(await parents.cancel(tree.job.id)).toBe('cancelled');
    expect((await cancelled)[0].id).toBe('long');
    await waitFor(async () => (await tree.job.getPendingChildren()).length === 0, { message: 'every child to report' });
    expect(await kids.getJob('quick')).toMatchObject({ state: 'completed' });
    expect(await kids.getJob('long')).toMatchObject({ state: 'cancelled' });
    expect(await mids.getJob('mid')).toMatchObject({ state: 'cancelled' });
    expect(await kids.getJob('later')).toMatchObject({ state: 'cancelled' });
    expect(await parents.getJob(tree.job.id)).toMatchObject({ state: 'cancelled' });
    expect(await h.store.getCounts('cx-p')).toMatchObject({ 'waiting-children': 0, cancelled: 1 });
    await expect(tree.job.waitUntilFinished({ timeout: 1000 })).rejects.toMatchObject({ name: 'JobCancelledError' });
    expect(await parents.remove(tree.job.id)).toBe(true);
  });
});

describe('flows: cancelling waiting children in bulk', () => {
  const h = engineHarness();

  it('a bulk cancel by name tells each child\'s parent at once, as a single cancel does', async () => {
    const parents = h.queue('bx-p');
    const kids = h.queue('bx-k');
    const flows = new FlowProducer({ store: h.store });
    const failing = await flows.add({ name: 'p', queueName: 'bx-p', children: [{ name: 'doomed', queueName: 'bx-k' }, { name: 'other', queueName: 'bx-k' }] });
    const going = await flows.add({
      name: 'p', queueName: 'bx-p',
      children: [{ name: 'doomed', queueName: 'bx-k', failurePolicy: 'continueParentOnFailure' }, { name: 'other', queueName: 'bx-k' }],
    });
    await kids.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: i % 2 ? 'doomed' : 'plain', data: i })));
    expect(await kids.cancel({ filter: { state: 'waiting', name: 'doomed' } })).toBe(12);
    // No housekeeping sweep runs here: the parents heard it from the cancel itself.
    expect(await parents.getJob(failing.job.id)).toMatchObject({ state: 'failed', error: { reason: 'child-failed' } });
    expect(await parents.getJob(going.job.id)).toMatchObject({ state: 'waiting' });
    expect(await kids.getCounts()).toMatchObject({ waiting: 12, cancelled: 12 });
    expect(await kids.verify()).toEqual([]);
    expect(await parents.verify()).toEqual([]);

    // The parent that went on waits with a child still pending: a bulk cancel of it (by id or by filter) cancels that child too.
    const other = going.children![1]!.job.id;
    expect(await parents.cancel([going.job.id, failing.job.id])).toBe(1);
    expect(await parents.getJob(going.job.id)).toMatchObject({ state: 'cancelled' });
    expect(await kids.getJob(other)).toMatchObject({ state: 'cancelled' });
    expect(await kids.verify()).toEqual([]);
    expect(await parents.verify()).toEqual([]);
  });
});
