import { RedisOutOfMemoryError } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { ownRedis } from './support/own-redis.js';
import { scenario, type Scenario } from './support/scenario.js';

// maxmemory reached with noeviction: Redis refuses writes. Own redis-server
// (CONFIG SET would hit every suite on the shared one).
describe('chaos: Redis out of memory (maxmemory, noeviction)', () => {
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  let s: Scenario;

  beforeAll(async () => {
    redis = await ownRedis();
  });
  afterAll(async () => {
    await redis.dispose();
  });
  beforeEach(async () => {
    s = await scenario(redis.url, { lockDuration: 2000, stalledInterval: 500, pollInterval: 500, concurrency: 2 });
  });
  afterEach(async () => {
    const admin = await redis.admin();
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
    await s.dispose();
  });

  it('add() rejects with RedisOutOfMemoryError and writes nothing; workers keep running and drain once memory is back', async () => {
    const admin = await redis.admin();
    const worker = await s.worker();
    await s.queue.add('work', { mode: 'ok', ms: 1500 }, { jobId: 'running-at-oom' });
    await waitFor(() => worker.has('started', 'running-at-oom'), { timeout: 10_000, interval: 20, message: 'job started' });
    const before = await s.queue.getCounts();

    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '1']);
    const err = await s.queue.add('work', { mode: 'ok' }, { jobId: 'refused' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisOutOfMemoryError);
    expect((err as Error).message).toMatch(/out of memory.*nothing was written/);
    await expect(
      s.queue.addBulk([1, 2, 3].map((i) => ({ name: 'work', data: { mode: 'ok' }, opts: { jobId: `bulk-${i}` } }))),
    ).rejects.toBeInstanceOf(RedisOutOfMemoryError);
    expect(await s.queue.getJob('refused')).toBeNull();
    expect(await s.queue.getJob('bulk-1')).toBeNull();
    expect(await s.queue.getCounts()).toEqual(before);
    expect(await s.queue.verify()).toEqual([]);

    // The worker rides it out (its writes are retried until Redis takes them).
    expect(worker.alive).toBe(true);
    await admin.sendCommand(['CONFIG', 'SET', 'maxmemory', '0']);
    await waitFor(async () => (await s.queue.getJob('running-at-oom'))?.state === 'completed', { timeout: 15_000, interval: 50, message: 'running job completed' });
    await s.queue.add('work', { mode: 'ok' }, { jobId: 'after-oom' });
    await waitFor(() => worker.has('completed', 'after-oom'), { timeout: 10_000, interval: 20, message: 'worker ran a job after the OOM' });
    expect(await s.end()).toEqual([]);
  });
});
