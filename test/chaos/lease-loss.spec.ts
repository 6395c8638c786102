import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../helpers/wait-for.js';
import { ownRedis } from './support/own-redis.js';
import { scenario, type Scenario } from './support/scenario.js';

// A worker process whose event loop is blocked past its lease: another
// process reaps the job and finishes it; the first holder must write nothing.
// Own redis-server: the second test kills pub/sub connections.
describe('chaos: a worker blocked beyond its lease', () => {
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  let s: Scenario;
  const leases = { lockDuration: 1000, lockRenewTime: 300, stalledInterval: 300, pollInterval: 500 };

  beforeAll(async () => {
    redis = await ownRedis();
  });
  afterAll(async () => {
    await redis.dispose();
  });
  beforeEach(async () => {
    s = await scenario(redis.url, leases);
  });
  afterEach(async () => {
    await s.dispose();
  });

  async function blockedThenTakenOver(duringBlock: () => Promise<void> = async () => undefined) {
    const first = await s.worker();
    // The first holder stays blocked until the job was taken over and finished
    // (a file the test writes), however long a loaded machine needs for that.
    const unblock = join(mkdtempSync(join(tmpdir(), 'spool-block-')), 'go');
    await s.queue.add('work', { mode: 'block', ms: 60_000, untilFile: unblock }, { jobId: 'hung' });
    await waitFor(() => first.has('started', 'hung'), { timeout: 10_000, message: 'first worker started the job' });
    await duringBlock();
    const second = await s.worker();
    await waitFor(async () => (await s.queue.getJob('hung'))?.state === 'completed', { timeout: 30_000, interval: 50, message: 'job completed by the second worker' });
    writeFileSync(unblock, '');
    await waitFor(() => first.has('late', 'hung'), { timeout: 10_000, message: 'first worker woke up' });
    return { first, second };
  }

  it('re-delivers the job; the late holder hears of it on the ownership-lost channel and its result is refused', async () => {
    const { first, second } = await blockedThenTakenOver();
    const late = first.of('late')[0]!;
    expect(late).toEqual(expect.objectContaining({ aborted: true, reason: 'LeaseLostError' }));
    await waitFor(() => first.has('error'), { timeout: 5000, message: 'first worker reported the lost lease' });
    expect(first.of('error').map((e) => e.name)).toEqual(['LeaseLostError']);
    expect(first.has('completed') || first.has('failed')).toBe(false);

    const job = (await s.queue.getJob('hung'))!;
    expect(job.stalled).toBe(1);
    expect(job.attempt).toBe(1);
    expect(job.error).toBeUndefined();
    expect(job.result).toEqual({ pid: second.pid });
    expect(second.of('completed').map((m) => m.id)).toEqual(['hung']);
    expect(await s.end()).toEqual([]);
  });

  it('refuses the lease extension that arrives after the reaper moved the job; the worker writes nothing', async () => {
    const admin = await redis.admin();
    // The hung worker's subscriber is cut while it is blocked, so the reap's
    // ownership-lost message never reaches it: only its next extend can tell it.
    const { first, second } = await blockedThenTakenOver(async () => {
      await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    });
    const late = first.of('late')[0]!;
    expect(late).toEqual(expect.objectContaining({ aborted: true, reason: 'LeaseLostError' }));
    expect(late.message).not.toMatch(/not renewed/);
    expect(first.has('completed') || first.has('failed')).toBe(false);
    const job = (await s.queue.getJob('hung'))!;
    expect(job.result).toEqual({ pid: second.pid });
    expect(job.error).toBeUndefined();
    expect(await s.end()).toEqual([]);
  });
});
