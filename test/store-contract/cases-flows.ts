import { FlowProducer, UnrecoverableError, type ChildFailurePolicy } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

/** Flows under every failure policy. */
export function flowCases(env: ContractEnv): void {
  const { queue, worker, state } = env;
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
      const tree = await new FlowProducer({ store: env.store() }).add({
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
      const tree = await new FlowProducer({ store: env.store() }).add({
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
      await expect(new FlowProducer({ store: env.store() }).add({
        name: 'p', queueName: 'dup-p', children: [{ name: 'c', queueName: 'dup-k', opts: { jobId: 'taken' } }],
      })).rejects.toMatchObject({ name: 'DuplicateJobIdError' });
      expect((await env.store().getCounts('dup-p'))['waiting-children']).toBe(0);
    });
  });

  describe('flows: redrive and cancel', () => {
    it('re-driving the dead child resumes its dead-lettered parent', async () => {
      const parents = queue('rd-p');
      const kids = queue('rd-k');
      let fixed = false;
      worker('rd-k', async () => {
        if (!fixed) throw new UnrecoverableError('broken');
        return 'kid ok';
      });
      worker('rd-p', async (job) => job.getChildrenResults());
      const tree = await new FlowProducer({ store: env.store() }).add({
        name: 'p', queueName: 'rd-p', children: [{ name: 'k', queueName: 'rd-k', opts: { jobId: 'k' } }],
      });
      await waitFor(async () => (await state(parents, tree.job.id)) === 'failed');
      expect(await tree.job.getPendingChildren()).toEqual([{ queue: 'rd-k', id: 'k' }]);
      fixed = true;
      expect(await kids.retry('k')).toBe('waiting');
      await waitFor(async () => (await state(parents, tree.job.id)) === 'completed');
      expect((await parents.getJob(tree.job.id))?.result).toEqual({ 'rd-k:k': 'kid ok' });
    });

    it('cancelling a parent that waits cancels its unfinished children', async () => {
      const parents = queue('cx-p');
      const kids = queue('cx-k');
      const tree = await new FlowProducer({ store: env.store() }).add({
        name: 'p', queueName: 'cx-p', children: [{ name: 'k', queueName: 'cx-k', opts: { jobId: 'k', delay: 60_000 } }],
      });
      expect(await kids.getJob('k')).toMatchObject({ state: 'delayed', parent: { queue: 'cx-p', id: tree.job.id } });
      expect(await parents.cancel(tree.job.id)).toBe('cancelled');
      expect(await kids.getJob('k')).toMatchObject({ state: 'cancelled' });
      expect(await parents.getJob(tree.job.id)).toMatchObject({ state: 'cancelled' });
    });
  });
}
