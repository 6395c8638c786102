import { FlowProducer, UnrecoverableError, type ChildFailurePolicy } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

/** One parent, a child that dies under `policy`, and a sibling that completes (slowly, for continueParentOnFailure). */
describe('flows: what a dead child does to its parent', () => {
  const h = engineHarness();

  async function run(policy: ChildFailurePolicy | undefined, label: string) {
    const parents = h.queue(`${label}-p`);
    const kids = h.queue(`${label}-k`);
    const flows = new FlowProducer({ store: h.store });
    let releaseSibling!: () => void;
    const siblingGate = new Promise<void>((r) => (releaseSibling = r));
    h.worker(`${label}-k`, async (job) => {
      if (job.name === 'bad') throw new UnrecoverableError('bad input');
      await siblingGate;
      return 'good';
    }, { concurrency: 2 });
    const parentSaw: { results?: Record<string, unknown>; failures?: Record<string, unknown>; pending?: number }[] = [];
    h.worker(`${label}-p`, async (job) => {
      parentSaw.push({ results: await job.getChildrenResults(), failures: await job.getChildrenFailures(), pending: (await job.getPendingChildren()).length });
      return 'parent done';
    });
    const tree = await flows.add({
      name: 'parent',
      queueName: `${label}-p`,
      children: [
        { name: 'bad', queueName: `${label}-k`, opts: { jobId: 'bad' }, ...(policy && { failurePolicy: policy }) },
        { name: 'good', queueName: `${label}-k`, opts: { jobId: 'good' } },
      ],
    });
    await waitFor(async () => (await kids.getJob('bad'))?.state === 'failed', { message: 'the bad child to die' });
    return { parents, kids, tree, parentSaw, releaseSibling };
  }

  it('failParentOnFailure (default): the parent is dead-lettered with the child reason', async () => {
    const { parents, tree, releaseSibling } = await run(undefined, 'pol-fail');
    await expect(tree.job.waitUntilFinished({ timeout: 5000 })).rejects.toMatchObject({ name: 'JobFailedError', reason: 'child-failed' });
    const parent = await parents.getJob(tree.job.id);
    expect(parent?.error?.message).toMatch(/child bad of queue pol-fail-k died \(unrecoverable\): bad input/);
    releaseSibling();
    // The sibling still reports to the dead parent: it ends with nothing pending but the dead child.
    await waitFor(async () => (await tree.job.getChildrenResults())['pol-fail-k:good'] === 'good');
    expect(await tree.job.getPendingChildren()).toEqual([{ queue: 'pol-fail-k', id: 'bad' }]);
  });

  it('continueParentOnFailure: the parent starts at once, its other child still running', async () => {
    const { tree, parentSaw, releaseSibling } = await run('continueParentOnFailure', 'pol-cont');
    await expect(tree.job.waitUntilFinished({ timeout: 5000 })).resolves.toBe('parent done');
    expect(parentSaw).toEqual([{ results: {}, failures: { 'pol-cont-k:bad': { state: 'failed', reason: 'unrecoverable', message: 'bad input', policy: 'continueParentOnFailure' } }, pending: 1 }]);
    releaseSibling();
    await waitFor(async () => (await tree.job.getPendingChildren()).length === 0, { message: 'the sibling to report' });
  });

  it('ignoreDependencyOnFailure: the parent runs when the rest is done and sees the failure listed', async () => {
    const { parents, tree, parentSaw, releaseSibling } = await run('ignoreDependencyOnFailure', 'pol-ign');
    expect(await parents.getJob(tree.job.id)).toMatchObject({ state: 'waiting-children' });
    releaseSibling();
    await expect(tree.job.waitUntilFinished({ timeout: 5000 })).resolves.toBe('parent done');
    expect(parentSaw).toEqual([
      { results: { 'pol-ign-k:good': 'good' }, failures: { 'pol-ign-k:bad': expect.objectContaining({ policy: 'ignoreDependencyOnFailure', message: 'bad input' }) }, pending: 0 },
    ]);
  });

  it('removeDependencyOnFailure: the parent runs as if the child never was', async () => {
    const { parents, tree, parentSaw, releaseSibling } = await run('removeDependencyOnFailure', 'pol-rm');
    expect(await parents.getJob(tree.job.id)).toMatchObject({ state: 'waiting-children' });
    releaseSibling();
    await expect(tree.job.waitUntilFinished({ timeout: 5000 })).resolves.toBe('parent done');
    expect(parentSaw).toEqual([{ results: { 'pol-rm-k:good': 'good' }, failures: {}, pending: 0 }]);
  });
});
