import { DURATION_BUCKET_BOUNDS_MS, Queue, type RedisStore } from '../../lib/index.js';
import { durationStats } from '../../lib/engine/metrics.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/** lua/includes/metrics: the bucket a duration lands in, written by complete. */
describe('metrics counters (complete)', () => {
  let store: RedisStore;
  let queue: Queue;

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue('lua-metrics', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  /** Completes one job whose handler "ran" `duration` ms and returns the bucket index it was counted in. */
  async function bucketOf(duration: number | undefined): Promise<number[]> {
    await queue.add('j', null);
    const [job] = (await store.claim('lua-metrics', { count: 1, workerId: 'w', lockMs: 10_000 })).jobs;
    const before = (await queue.getMetrics()).lastHour.durationBuckets;
    const done = await store.complete('lua-metrics', { id: job!.id, token: job!.token! }, 'null', { count: 0, workerId: 'w', lockMs: 10_000 }, duration);
    expect(done.status).toBe('completed');
    const after = (await queue.getMetrics()).lastHour.durationBuckets;
    return after.map((n, k) => n - before[k]!).flatMap((n, k) => (n > 0 ? [k] : []));
  }

  it('puts a duration in the smallest bucket k with duration <= 2^k ms', async () => {
    expect(await bucketOf(0)).toEqual([0]);
    expect(await bucketOf(1)).toEqual([0]);
    expect(await bucketOf(1.2)).toEqual([1]);
    expect(await bucketOf(2)).toEqual([1]);
    expect(await bucketOf(4)).toEqual([2]);
    expect(await bucketOf(5)).toEqual([3]);
    expect(await bucketOf(1024)).toEqual([10]);
    expect(await bucketOf(1025)).toEqual([11]);
    expect(await bucketOf(2 ** 20)).toEqual([20]);
    expect(await bucketOf(2 ** 20 + 1)).toEqual([21]);
    expect(await bucketOf(3_600_000)).toEqual([21]);
  });

  it('counts a completion without a measured duration, in no bucket', async () => {
    expect(await bucketOf(undefined)).toEqual([]);
    const { lastHour } = await queue.getMetrics();
    expect(lastHour.completed).toBe(1);
    expect(lastHour.durationSumMs).toBe(0);
  });
});

describe('durationStats', () => {
  it('has one bound per bucket: 2^k ms, then the open bucket', () => {
    expect(DURATION_BUCKET_BOUNDS_MS).toHaveLength(22);
    expect(DURATION_BUCKET_BOUNDS_MS[10]).toBe(1024);
    expect(DURATION_BUCKET_BOUNDS_MS[21]).toBe(Infinity);
  });

  it('interpolates percentiles inside the bucket the rank falls in', () => {
    const buckets = new Array<number>(22).fill(0);
    buckets[4] = 50; // (8, 16] ms
    buckets[7] = 50; // (64, 128] ms
    const stats = durationStats(buckets, 100 * 50)!;
    expect(stats.count).toBe(100);
    expect(stats.meanMs).toBe(50);
    expect(stats.p50Ms).toBe(16);
    expect(stats.p90Ms).toBe(64 + (64 * 40) / 50);
    expect(stats.p99Ms).toBe(126.7); // 64 + 64 * 49 / 50, rounded to 0.1 ms
  });

  it('is null without completions', () => {
    expect(durationStats(new Array<number>(22).fill(0), 0)).toBeNull();
  });
});

/** lua/gauges.lua: the minute's gauge sample lives in the minute's metrics hash and expires with it. */
describe('gauge samples (gauges)', () => {
  let store: RedisStore;

  beforeEach(async () => {
    store = await testStore();
  });
  afterEach(async () => {
    await store.disconnect();
  });

  it('writes gw and gl into the minute hash once, with the minute\'s expiry when it opens the minute', async () => {
    const queue = new Queue('lua-gauges', { store });
    await queue.add('j', null);
    const redis = commandOf(store);
    // The minute hash sits beside the meta key, under the same hash tag (includes/metrics).
    const metricsKey = async (): Promise<string> => `${keysOf(store, 'lua-gauges').meta.slice(0, -4)}metrics:${Math.floor(Number(((await redis.sendCommand(['TIME'])) as string[])[0]) / 60)}`;
    // Not in a minute's last 2 s: the sample and the reads below fall in one minute (bounded: at most 2 s).
    await waitFor(async () => Number(((await redis.sendCommand(['TIME'])) as string[])[0]) % 60 < 58, { timeout: 3000, message: 'a minute with 2 s left' });
    expect(await store.sampleGauges('lua-gauges')).toBe(true);
    const key = await metricsKey();
    expect(((await redis.sendCommand(['HKEYS', key])) as string[]).map(String).sort()).toEqual(['gl', 'gw']);
    const field = async (f: string): Promise<string> => String(await redis.sendCommand(['HGET', key, f]));
    expect(await field('gl')).toBe('0');
    const ttl = Number(await redis.sendCommand(['TTL', key]));
    expect(ttl).toBeGreaterThan(3600);
    expect(ttl).toBeLessThanOrEqual(3720);
    // A second sample that minute changes nothing.
    const before = await field('gw');
    expect(Number(before)).toBeGreaterThanOrEqual(0);
    expect(await store.sampleGauges('lua-gauges')).toBe(false);
    expect(await field('gw')).toBe(before);
    expect(await queue.verify()).toEqual([]);
  });
});
