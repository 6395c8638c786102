import { setTimeout as sleep } from 'node:timers/promises';
import { UnrecoverableError } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { redisOnly } from '../helpers/store-kind.js';

const h = engineHarness({ pollInterval: 50 });

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

describe('queue.getMetrics()', () => {
  it('counts completions per minute with their handler durations in log-scale buckets', async () => {
    const queue = h.queue('m-complete');
    await queue.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: 'work', data: { i } })));
    let done = 0;
    h.worker('m-complete', async () => {
      await sleep(40);
      done += 1;
    }, { concurrency: 3 });
    await waitFor(async () => (await queue.getCounts()).completed === 6, { timeout: 10_000, message: '6 completed' });

    const m = await queue.getMetrics();
    expect(done).toBe(6);
    expect(m.queue).toBe('m-complete');
    expect(m.minutes).toHaveLength(60);
    const current = m.minutes[59]!;
    expect(current.at).toBe(Math.floor(m.at / 60_000) * 60_000);
    expect(m.minutes[0]!.at).toBe(current.at - 59 * 60_000);
    expect(m.lastHour.completed).toBe(6);
    expect(m.lastHour.failed).toBe(0);
    expect(m.lastHour.durationBuckets).toHaveLength(22);
    expect(sum(m.lastHour.durationBuckets)).toBe(6);
    // Every handler slept 40 ms: none is in the buckets up to 32 ms (k <= 5).
    expect(sum(m.lastHour.durationBuckets.slice(0, 6))).toBe(0);
    expect(m.lastHour.durationSumMs).toBeGreaterThanOrEqual(6 * 39);
    expect(m.lastHour.duration!.count).toBe(6);
    expect(m.lastHour.duration!.p50Ms).toBeGreaterThan(32);
    expect(m.lastHour.duration!.p99Ms).toBeGreaterThanOrEqual(m.lastHour.duration!.p50Ms);
    expect(m.counts.completed).toBe(6);
  });

  it('counts failed attempts, retries and dead letters, and leaves the minutes with nothing at zero', async () => {
    const queue = h.queue('m-fail');
    await queue.add('flaky', {}, { attempts: 3, backoff: { type: 'fixed', delay: 0 } });
    await queue.add('doomed', {}, { attempts: 5 });
    h.worker('m-fail', async (job) => {
      if (job.name === 'doomed') throw new UnrecoverableError('no');
      throw new Error('again');
    });
    await waitFor(async () => (await queue.getCounts()).failed === 2, { timeout: 10_000, message: 'two dead letters' });

    const { lastHour, minutes } = await queue.getMetrics();
    expect(lastHour).toMatchObject({ completed: 0, failed: 4, retried: 2, deadLettered: 2, stalled: 0, duration: null });
    const busy = minutes.filter((m) => m.failed > 0);
    expect(sum(busy.map((m) => m.failed))).toBe(4);
    expect(minutes.filter((m) => m.failed === 0 && m.completed === 0 && m.deadLettered === 0)).toHaveLength(60 - busy.length);
  });

  it('counts reaped leases as stalls, and a stall past maxStalled as a dead letter', async () => {
    const queue = h.queue('m-stall');
    await queue.add('lost', {});
    const claimed = await h.store.claim('m-stall', { count: 1, workerId: 'gone', lockMs: 1 });
    expect(claimed.jobs).toHaveLength(1);
    let reaped: { id: string; state: string }[] = [];
    await waitFor(async () => (reaped = await h.store.reap('m-stall', 0, 10)).length === 1, { message: 'the lease to expire' });
    expect(reaped[0]!.state).toBe('failed');

    const { lastHour } = await queue.getMetrics();
    expect(lastHour).toMatchObject({ stalled: 1, deadLettered: 1, failed: 0, completed: 0 });
  });

  it('reports how long the longest-waiting job waited, across priorities, LIFO jobs and groups', async () => {
    const queue = h.queue('m-age');
    const low = await queue.add('low', {}, { priority: 7 });
    await sleep(5);
    await queue.add('high', {}, { priority: 1 });
    await queue.add('lifo', {}, { priority: 7, lifo: true });
    await queue.add('grouped', {}, { group: { id: 'tenant-a' } });

    const m = await queue.getMetrics();
    expect(m.counts.waiting).toBe(4);
    expect(m.oldestWaitingMs).toBe(m.at - low.runAt!);

    const empty = await h.queue('m-age-empty').getMetrics();
    expect(empty.oldestWaitingMs).toBe(0);
    expect(empty.delayedLagMs).toBe(0);
  });

  it('takes the oldest of a group into account when it waited longest', async () => {
    const queue = h.queue('m-age-group');
    const first = await queue.add('grouped', {}, { group: { id: 'tenant-a' } });
    await sleep(5);
    await queue.add('plain', {});
    const m = await queue.getMetrics();
    expect(m.oldestWaitingMs).toBe(m.at - first.runAt!);
  });

  it('reports the lag of a delayed job that is due but not promoted', async () => {
    const queue = h.queue('m-lag');
    const late = await queue.add('late', {}, { delay: 1 });
    await queue.add('later', {}, { delay: 60_000 });
    await sleep(20);
    const m = await queue.getMetrics();
    expect(m.counts.delayed).toBe(2);
    expect(m.delayedLagMs).toBe(m.at - late.runAt!);
    expect(m.delayedLagMs).toBeGreaterThanOrEqual(15);
  });

  redisOnly('checks the TTL of the Redis per-minute hash')('keeps each minute in a hash that expires on its own after the hour', async () => {
    const queue = h.queue('m-ttl');
    await queue.add('one', {});
    h.worker('m-ttl', async () => 'ok');
    await waitFor(async () => (await queue.getCounts()).completed === 1, { message: 'completed' });
    const minute = (await queue.getMetrics()).minutes.find((m) => m.completed === 1)!;
    const client = commandOf(h.store, 'test');
    const key = `${keysOf(h.store, 'm-ttl').meta.slice(0, -4)}metrics:${minute.at / 60_000}`;
    const ttl = Number(await client.sendCommand(['TTL', key]));
    expect(ttl).toBeGreaterThan(3600);
    expect(ttl).toBeLessThanOrEqual(3720);
  });
});
