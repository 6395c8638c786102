import { FlowProducer, Queue, type JobOptions, type RedisStore } from '../../lib/index.js';
import type { QueueKeys } from '../../lib/store/keys.js';
import type { RedisClientLike } from '../../lib/store/redis-client.js';
import { decodeHash } from '../../lib/store/replies.js';
import type { RawReply } from '../../lib/store/reply-values.js';
import { testStore } from '../helpers/store.js';
import { commandOf, deliverToParent, keysOf } from '../helpers/redis-access.js';

/**
 * A dropped job takes its log list and flow keys with it, and drops name
 * those keys only where the queue's meta says its jobs may own them
 * (lua/includes/owned-keys): kt from the queue's first placement, klog once
 * a job logged, kflow once a flow parent was written. A queue without kt
 * (it held jobs before tracking began) drops every key, as it always did.
 */
describe('keys a job owns besides its hash', () => {
  let store: RedisStore;
  let queue: Queue<number>;
  let redis: RedisClientLike;
  let k: QueueKeys;
  const done = { count: 0, workerId: 'w', lockMs: 1 };

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue<number>('owned', { store });
    redis = commandOf(store);
    k = keysOf(store, 'owned');
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  const meta = async () => decodeHash((await redis.sendCommand(['HGETALL', k.meta])) as RawReply);
  const exists = async (key: string) => Number(await redis.sendCommand(['EXISTS', key]));

  /** Adds one job, claims it and writes a log line under its lease; returns the lease. */
  async function runWithLog(opts: JobOptions) {
    const job = await queue.add('j', 1, opts);
    const [record] = (await store.claim('owned', { count: 1, workerId: 'w', lockMs: 10_000 })).jobs;
    const lease = { id: record!.id, token: record!.token! };
    expect(lease.id).toBe(job.id);
    expect(await store.log('owned', lease, 'a line', 10)).toBe(1);
    return lease;
  }

  it('tracks them from the first placement: kt set, klog only once a job logged', async () => {
    await queue.add('j', 1);
    expect(await meta()).toMatchObject({ kt: '1' });
    expect((await meta()).klog).toBeUndefined();
    expect((await meta()).kflow).toBeUndefined();
    const [record] = (await store.claim('owned', { count: 1, workerId: 'w', lockMs: 10_000 })).jobs;
    await store.log('owned', { id: record!.id, token: record!.token! }, 'line', 10);
    expect(await meta()).toMatchObject({ kt: '1', klog: '1' });
  });

  it('drops the log list of a job removed on completion', async () => {
    const lease = await runWithLog({ removeOnComplete: true });
    expect(await exists(k.logs(lease.id))).toBe(1);
    expect((await store.complete('owned', lease, '1', done)).status).toBe('completed');
    expect(await exists(k.job(lease.id))).toBe(0);
    expect(await exists(k.logs(lease.id))).toBe(0);
  });

  it('drops the log list of a job trimmed by count', async () => {
    const first = await runWithLog({ removeOnComplete: 1 });
    await store.complete('owned', first, '1', done);
    const second = await runWithLog({ removeOnComplete: 1 });
    await store.complete('owned', second, '1', done);
    expect(await store.listIds('owned', 'completed', 0, -1)).toEqual([second.id]);
    expect(await exists(k.logs(first.id))).toBe(0);
    expect(await exists(k.logs(second.id))).toBe(1);
  });

  it('drops every key of an untracked queue (no kt), logs written without klog included', async () => {
    const lease = await runWithLog({ removeOnComplete: true });
    // As a queue whose jobs logged before tracking began: no kt, no klog.
    await redis.sendCommand(['HDEL', k.meta, 'kt', 'klog']);
    await store.complete('owned', lease, '1', done);
    expect(await exists(k.logs(lease.id))).toBe(0);
  });

  it('drops a flow parent with its deps, results and failures', async () => {
    const flows = new FlowProducer({ store });
    const tree = await flows.add({
      name: 'parent', queueName: 'owned', data: 0, opts: { removeOnComplete: true },
      children: [{ name: 'child', queueName: 'owned', data: 1, opts: { removeOnComplete: true } }],
    });
    const parentId = tree.job.id;
    expect(await meta()).toMatchObject({ kflow: '1' });
    expect(await exists(k.deps(parentId))).toBe(1);
    const runOne = async () => {
      const [record] = (await store.claim('owned', { count: 1, workerId: 'w', lockMs: 10_000 })).jobs;
      const outcome = await store.complete('owned', { id: record!.id, token: record!.token!, ...(record!.parent && { child: true }) }, '2', done);
      expect(outcome.status).toBe('completed');
      if (record!.parent) await deliverToParent(store, 'owned', record!.id);
      return record!.id;
    };
    await runOne();
    expect(await exists(k.results(parentId))).toBe(1);
    expect(await runOne()).toBe(parentId);
    for (const key of [k.job(parentId), k.deps(parentId), k.results(parentId), k.failures(parentId)]) expect(await exists(key)).toBe(0);
  });

  it('marks kflow at the first placement of a queue that holds jobs from before tracking began', async () => {
    // A job written without tracking: a flow parent cancelled with its children, never placed.
    await redis.sendCommand(['ZADD', k.cancelled, '1', 'legacy']);
    await redis.sendCommand(['HSET', k.job('legacy'), 'id', 'legacy', 'name', 'p', 'data', '0', 'state', 'cancelled', 'createdAt', '1', 'finishedAt', '1']);
    await queue.add('j', 1);
    expect(await meta()).toMatchObject({ kt: '1', kflow: '1' });
  });
});
