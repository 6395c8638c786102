import {
  DuplicateJobIdError,
  FlowProducer,
  InvalidArgumentError,
  UnknownOptionError,
  UnknownQueueError,
  type ActiveJob,
  type JobCounts,
} from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf } from '../helpers/redis-access.js';
import { storeKind } from '../helpers/store-kind.js';

describe('flows: trees across queues', () => {
  const h = engineHarness();

  it('runs a depth-3 tree across 3 queues bottom-up, each parent seeing its children results', async () => {
    const [top, mid, leaf] = [h.queue('f-top'), h.queue('f-mid'), h.queue('f-leaf')];
    const flows = new FlowProducer({ store: h.store, queues: [top, mid, leaf] });
    const order: string[] = [];
    const seen: Record<string, Record<string, unknown>> = {};
    const handler = async (job: ActiveJob<{ n: number }>) => {
      order.push(`${job.queueName}/${job.id}`);
      const results = await job.getChildrenResults<number>();
      seen[job.id] = results;
      return job.data.n + Object.values(results).reduce((a, b) => a + b, 0);
    };
    h.worker('f-top', handler);
    h.worker('f-mid', handler);
    h.worker('f-leaf', handler);

    const tree = await flows.add({
      name: 'sum',
      queueName: 'f-top',
      data: { n: 1000 },
      opts: { jobId: 'root' },
      children: [
        {
          name: 'sum',
          queueName: 'f-mid',
          data: { n: 100 },
          opts: { jobId: 'mid-a' },
          children: [
            { name: 'sum', queueName: 'f-leaf', data: { n: 1 }, opts: { jobId: 'l1' } },
            { name: 'sum', queueName: 'f-top', data: { n: 2 }, opts: { jobId: 'l2' } },
          ],
        },
        { name: 'sum', queueName: 'f-leaf', data: { n: 10 }, opts: { jobId: 'l3' } },
      ],
    });
    expect(tree.job.state).toBe('waiting-children');
    expect(tree.children[0]!.job.state).toBe('waiting-children');
    expect(tree.children[0]!.children[0]!.job).toMatchObject({ state: 'waiting', parent: { queue: 'f-mid', id: 'mid-a' } });

    await expect(tree.job.waitUntilFinished({ timeout: 10_000 })).resolves.toBe(1000 + 100 + 1 + 2 + 10);
    expect(seen['mid-a']).toEqual({ 'f-leaf:l1': 1, 'f-top:l2': 2 });
    expect(seen.root).toEqual({ 'f-mid:mid-a': 103, 'f-leaf:l3': 10 });
    // Parents ran after all their children, once each.
    expect(order.indexOf('f-mid/mid-a')).toBeGreaterThan(Math.max(order.indexOf('f-leaf/l1'), order.indexOf('f-top/l2')));
    expect(order.indexOf('f-top/root')).toBe(order.length - 1);
    expect(order).toHaveLength(5);
  });

  it('reports waiting-children in getCounts while the parent waits', async () => {
    const parents = h.queue('c-parents');
    h.queue('c-kids');
    const flows = new FlowProducer({ store: h.store });
    await flows.add({ name: 'p', queueName: 'c-parents', children: [{ name: 'k', queueName: 'c-kids' }] });
    expect(await parents.getCounts()).toMatchObject({ 'waiting-children': 1, waiting: 0 });
    // Nothing runs the child here: cancel the tree so the queues end sound.
    const [parentId] = await h.store.listIds('c-parents', 'waiting-children', 0, -1);
    expect(await parents.cancel(parentId!)).toBe('cancelled');
  });

  describe('rejects a bad tree whole, writing nothing', () => {
    const names = ['r-a', 'r-b', 'r-c'];
    async function nothingWritten(): Promise<void> {
      for (const name of names) {
        const counts: JobCounts = await h.store.getCounts(name);
        expect(Object.values(counts).every((n) => n === 0)).toBe(true);
      }
      // The counts above are what a user sees on either store; on Redis, no stray key of a half-written tree either.
      if (storeKind() !== 'redis') return;
      const keys = (await commandOf(h.store, 'test').sendCommand(['KEYS', `{${h.store.prefix}:r-*`])) as string[];
      // meta, and the event stream of what the test itself did (add, cancel, remove of 'taken'), may exist.
      expect(keys.filter((k) => !k.endsWith(':meta') && !k.endsWith(':events'))).toEqual([]);
    }
    const tree = (bad: Record<string, unknown>) => ({
      name: 'root',
      queueName: 'r-a',
      children: [
        { name: 'ok', queueName: 'r-b', data: { fine: true } },
        { name: 'mid', queueName: 'r-c', children: [{ name: 'deep', queueName: 'r-b', ...bad }] },
      ],
    });

    beforeEach(() => names.forEach((n) => h.queue(n)));

    it('an unknown queue', async () => {
      const flows = new FlowProducer({ store: h.store, queues: names.map((n) => h.queue(n)) });
      const err = await flows.add(tree({ queueName: 'r-nope' })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(UnknownQueueError);
      expect((err as UnknownQueueError).field).toBe('flow.children[1].children[0].queueName');
      await nothingWritten();
    });

    it('invalid data or options', async () => {
      const flows = new FlowProducer({ store: h.store });
      await expect(flows.add(tree({ data: { n: 1n } }))).rejects.toThrow(InvalidArgumentError);
      await expect(flows.add(tree({ opts: { delay: -1 } }))).rejects.toThrow(/flow\.children\[1\]\.children\[0\]\.opts\.delay/);
      await expect(flows.add(tree({ opts: { atempts: 2 } }))).rejects.toThrow(UnknownOptionError);
      await expect(flows.add(tree({ failurePolicy: 'sometimes' }))).rejects.toThrow(/failurePolicy/);
      await nothingWritten();
    });

    it('a job id repeated inside the tree', async () => {
      const flows = new FlowProducer({ store: h.store });
      const err = await flows
        .add({ name: 'root', queueName: 'r-a', children: [{ name: 'x', queueName: 'r-b', opts: { jobId: 'same' } }, { name: 'y', queueName: 'r-b', opts: { jobId: 'same' } }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DuplicateJobIdError);
      await nothingWritten();
    });

    it('a job id that already exists in a later queue (the written parts are discarded)', async () => {
      const flows = new FlowProducer({ store: h.store });
      const existing = await h.queue('r-c').add('taken', {}, { jobId: 'taken' });
      const err = await flows.add(tree({ queueName: 'r-c', opts: { jobId: 'taken' } })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DuplicateJobIdError);
      expect((err as DuplicateJobIdError).field).toBe('flow.children[1].children[0].opts.jobId');
      expect(await h.queue('r-c').cancel(existing.id)).toBe('cancelled');
      expect(await h.queue('r-c').remove(existing.id)).toBe(true);
      await nothingWritten();
    });
  });
});
