import { FlowProducer } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf, keysOf, deliverToParent, sweepOutbox } from '../helpers/redis-access.js';
import { redisOnly } from '../helpers/store-kind.js';

describe('flows: many children finishing at once', () => {
  const h = engineHarness();

  it('moves the parent exactly once when 50 children complete concurrently', async () => {
    h.queue('cc-parent');
    h.queue('cc-kids');
    const flows = new FlowProducer({ store: h.store });
    // Every child blocks until all 50 run, then all return together.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let running = 0;
    h.worker('cc-kids', async (job) => {
      running += 1;
      if (running === 50) release();
      await gate;
      return Number(job.id.slice(4));
    }, { concurrency: 50 });
    // Two parent workers, so a double move would show as a second run.
    let parentRuns = 0;
    let seen: Record<string, number> = {};
    const parentHandler = async (job: { getChildrenResults<T>(): Promise<Record<string, T>> }) => {
      parentRuns += 1;
      seen = await job.getChildrenResults<number>();
      return Object.keys(seen).length;
    };
    h.worker('cc-parent', parentHandler);
    h.worker('cc-parent', parentHandler);

    const children = Array.from({ length: 50 }, (_, i) => ({ name: 'kid', queueName: 'cc-kids', opts: { jobId: `kid-${i}` } }));
    const tree = await flows.add({ name: 'parent', queueName: 'cc-parent', children });
    await expect(tree.job.waitUntilFinished({ timeout: 15_000 })).resolves.toBe(50);
    expect(parentRuns).toBe(1);
    expect(Object.keys(seen).sort()).toEqual(children.map((c) => `cc-kids:${c.opts.jobId}`).sort());
    expect(seen['cc-kids:kid-7']).toBe(7);
    const counts = await h.store.getCounts('cc-parent');
    expect(counts).toMatchObject({ completed: 1, waiting: 0, 'waiting-children': 0, active: 0 });
  });

  redisOnly('replays a notification through the Redis outbox hash')('applies the same child notification twice without moving the parent twice (child-done is idempotent)', async () => {
    const parents = h.queue('idem-parent');
    h.queue('idem-kids');
    const flows = new FlowProducer({ store: h.store });
    const tree = await flows.add({
      name: 'p',
      queueName: 'idem-parent',
      children: [{ name: 'k', queueName: 'idem-kids', opts: { jobId: 'k1' } }, { name: 'k', queueName: 'idem-kids', opts: { jobId: 'k2' } }],
    });
    const claim = () => h.store.claim('idem-kids', { count: 1, workerId: 'w', lockMs: 10_000 }).then((c) => c.jobs[0]!);
    const complete = async () => {
      const job = await claim();
      await h.store.complete('idem-kids', { id: job.id, token: job.token! }, '"ok"', { count: 0, workerId: 'w', lockMs: 10_000 });
      return job.id;
    };
    const first = await complete();
    const outbox = keysOf(h.store, 'idem-kids').outbox;
    const message = (await commandOf(h.store, 'test').sendCommand(['HGET', outbox, first])) as string;
    await deliverToParent(h.store, 'idem-kids', first);
    // Re-deliver the already applied notification (as a sweep racing the worker would).
    await commandOf(h.store, 'test').sendCommand(['HSET', outbox, first, message]);
    await sweepOutbox(h.store, 'idem-kids', 100);
    expect(await parents.getJob(tree.job.id)).toMatchObject({ state: 'waiting-children' });
    const second = await complete();
    await Promise.all([deliverToParent(h.store, 'idem-kids', second), sweepOutbox(h.store, 'idem-kids', 100), deliverToParent(h.store, 'idem-kids', second)]);
    expect(await h.store.getCounts('idem-parent')).toMatchObject({ waiting: 1, 'waiting-children': 0 });
    expect(await h.store.listIds('idem-parent', 'waiting', 0, -1)).toEqual([tree.job.id]);
    // Run the parent to the end so the queue is left finished.
    const worker = h.worker('idem-parent', async (job) => Object.keys(await job.getChildrenResults()).length);
    await waitFor(async () => (await parents.getJob(tree.job.id))?.state === 'completed');
    expect((await parents.getJob(tree.job.id))?.result).toBe(2);
    await worker.close();
  });
});
