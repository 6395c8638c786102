import { FlowAddAbandonedError, FlowProducer, type RedisStore } from '../../lib/index.js';
import type { ScriptCalls } from '../../lib/store/redis-flows.js';
import type { NewFlowNode } from '../../lib/store/store.js';
import { engineHarness } from '../helpers/harness.js';
import { sweepFlows } from '../helpers/redis-access.js';

/** A store whose addFlow stops where a producer dying there would, then reports the death. */
function dyingAfter(store: RedisStore, step: 'write' | 'decide'): RedisStore {
  return Object.create(store, {
    addFlow: {
      value: async (nodes: readonly NewFlowNode[]) => {
        await store.addFlow(nodes, step);
        throw new Error(`producer died after ${step}`);
      },
    },
  }) as RedisStore;
}

const tree = {
  name: 'order',
  queueName: 'ac-orders',
  opts: { jobId: 'o1' },
  children: [
    { name: 'charge', queueName: 'ac-pay', opts: { jobId: 'c1' } },
    { name: 'pack', queueName: 'ac-ship', opts: { jobId: 'p1' } },
  ],
};

describe('flows: a producer dies between writing a tree and committing it', () => {
  const h = engineHarness();

  it('before deciding: the sweep discards every part after the grace, nothing ran, the ids are free again', async () => {
    const queues = ['ac-orders', 'ac-pay', 'ac-ship'].map((name) => h.queue(name));
    await expect(new FlowProducer({ store: dyingAfter(h.store, 'write') }).add(tree)).rejects.toThrow('producer died after write');

    // Written and held: nothing can run, and verify names the stuck add.
    expect(await queues[1]!.getJob('c1')).toMatchObject({ state: 'waiting-children' });
    expect(await queues[1]!.verify()).toEqual(expect.arrayContaining([expect.stringContaining('never committed')]));

    // Within the grace a sweep leaves a live producer's add alone.
    for (const q of ['ac-orders', 'ac-pay', 'ac-ship']) expect(await sweepFlows(h.store, q)).toBe(0);
    for (const q of ['ac-orders', 'ac-pay', 'ac-ship']) expect(await sweepFlows(h.store, q, 0)).toBe(1);

    for (const [q, id] of [[0, 'o1'], [1, 'c1'], [2, 'p1']] as const) expect(await queues[q]!.getJob(id)).toBeNull();
    const counts = await Promise.all(queues.map((q) => q.getCounts()));
    for (const c of counts) expect(c).toMatchObject({ waiting: 0, 'waiting-children': 0, active: 0 });
    // The producer, told its add failed, adds the same tree again: it is accepted and runs.
    const again = await new FlowProducer({ store: h.store }).add(tree);
    expect(again.children.map((c) => c.job.state)).toEqual(['waiting', 'waiting']);
    h.worker('ac-pay', () => 'paid');
    h.worker('ac-ship', () => 'packed');
    h.worker('ac-orders', (job) => job.getChildrenResults());
    await expect(again.job.waitUntilFinished({ timeout: 10_000 })).resolves.toEqual({ 'ac-pay:c1': 'paid', 'ac-ship:p1': 'packed' });
  });

  it('after deciding to release: the sweep of each queue releases its part and the tree runs once', async () => {
    ['ac-orders', 'ac-pay', 'ac-ship'].forEach((name) => h.queue(name));
    await expect(new FlowProducer({ store: dyingAfter(h.store, 'decide') }).add(tree)).rejects.toThrow('producer died after decide');

    let parentRuns = 0;
    const ran: string[] = [];
    h.worker('ac-pay', (job) => (ran.push(job.id), 'paid'));
    h.worker('ac-ship', (job) => (ran.push(job.id), 'packed'));
    h.worker('ac-orders', () => (parentRuns += 1));
    for (const q of ['ac-pay', 'ac-ship', 'ac-orders']) expect(await sweepFlows(h.store, q, 0)).toBe(1);
    await expect(h.queue('ac-orders').waitFor('o1', { timeout: 10_000 })).resolves.toBe(1);
    expect(ran.sort()).toEqual(['c1', 'p1']);
    expect(parentRuns).toBe(1);
    // Settled: a second sweep finds nothing.
    for (const q of ['ac-pay', 'ac-ship', 'ac-orders']) expect(await sweepFlows(h.store, q, 0)).toBe(0);
  });

  it('a producer slower than the grace loses to the sweep: its add fails whole with FlowAddAbandonedError', async () => {
    const queues = ['ac-orders', 'ac-pay', 'ac-ship'].map((name) => h.queue(name));
    // The slow producer has written its parts; a sweep decides discard before it can decide release.
    // NOTE: reaches into the store's flow writer to run the sweep between two of its script calls.
    const flows = (h.store as unknown as { flows: { s: ScriptCalls } }).flows;
    const original = flows.s;
    flows.s = {
      ...original,
      run: async (...args) => {
        const reply = await original.run(...args);
        if (args[0] === 'flowAdd' && args[1] === 'ac-ship') await sweepFlows(h.store, 'ac-orders', 0);
        return reply;
      },
    };
    try {
      await expect(new FlowProducer({ store: h.store }).add(tree)).rejects.toBeInstanceOf(FlowAddAbandonedError);
    } finally {
      flows.s = original;
    }
    for (const [q, id] of [[0, 'o1'], [1, 'c1'], [2, 'p1']] as const) expect(await queues[q]!.getJob(id)).toBeNull();
  });
});
