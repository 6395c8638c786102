import { Queue, QueueFullError, RateLimitedError, Worker } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * docs/guide/throughput.md "Throughput control" example, as written there, with the store
 * from the harness and `fetch` answered locally: the first call says 429
 * (retry after 1 s), the next ones 200.
 */
describe('README throughput example', () => {
  const h = engineHarness();

  it('stores the limits, waits out a 429 without spending the attempt, and pauses by name and group', async () => {
    const store = h.store;
    const calls: { url: string; at: number }[] = [];
    const fetch = async (url: string) => {
      calls.push({ url, at: Date.now() });
      const status = calls.length === 1 ? 429 : 200;
      return { status, headers: new Headers(status === 429 ? { 'retry-after': '1' } : {}) };
    };

    const queue = new Queue('api-calls', { store }); // store: connected as in the engine example
    await queue.configure({
      rateLimit: { max: 100, duration: 1000 }, // whole queue: at most 100 starts per second
      groupConcurrency: 2,                      // each group (tenant): at most 2 running at once
      groupRateLimit: { max: 10, duration: 1000 },
      maxWaiting: 50_000,                       // add() past this throws QueueFullError
      maxWaitingPerGroup: 1_000,
    });
    await queue.setGroupLimits('tenant-big', { concurrency: 8 }); // override one group; null = back to the default

    const first = await queue.add('sync', { account: 42 }, { group: { id: 'tenant-7' } });

    const worker = new Worker<{ account: number }>('api-calls', async (job) => {
      const res = await fetch(`https://api.example.com/sync/${job.data.account}`);
      // Downstream says "slow down": the job waits without spending an attempt,
      // and the whole queue starts nothing for that long.
      if (res.status === 429) {
        const after = res.headers.get('retry-after') ?? '1'; // seconds, or an HTTP date
        throw new RateLimitedError(/^\d+$/.test(after) ? Number(after) * 1000 : new Date(after));
      }
    }, { store, concurrency: 50 });
    try {

      // The limits live in Redis.
      expect(await queue.getLimits()).toEqual({
        rateLimit: { max: 100, duration: 1000 },
        concurrency: null,
        groupConcurrency: 2,
        groupRateLimit: { max: 10, duration: 1000 },
        maxWaiting: 50_000,
        maxWaitingPerGroup: 1_000,
      });
      expect((await queue.getGroup('tenant-big')).concurrency).toBe(8);

      // The 429 put the job back for 1 s; its one attempt ran again and completed.
      await first.waitUntilFinished({ timeout: 10_000 });
      expect(calls.map((c) => c.url)).toEqual(['https://api.example.com/sync/42', 'https://api.example.com/sync/42']);
      expect(calls[1]!.at - calls[0]!.at).toBeGreaterThanOrEqual(900);
      expect((await queue.getJob(first.id))?.attempt).toBe(1);

      await queue.pause({ names: ['sync'] }); // workers everywhere stop starting 'sync' jobs
      const held = await queue.add('sync', { account: 43 }, { group: { id: 'tenant-7' } });
      await waitFor(async () => (await queue.getCounts()).paused === 1, { message: 'the sync job counted as paused' });
      expect((await queue.getJob(held.id))?.state).toBe('waiting');
      expect(calls).toHaveLength(2);
      await queue.resume({ names: ['sync'] }); // they come back in their order
      await held.waitUntilFinished({ timeout: 10_000 });
      expect(calls.map((c) => c.url).at(-1)).toBe('https://api.example.com/sync/43');

      await queue.pauseGroup('tenant-7');      // one tenant only
      expect((await queue.getGroup('tenant-7')).paused).toBe(true);
      const tenant7 = await queue.add('sync', { account: 44 }, { group: { id: 'tenant-7' } });
      const other = await queue.add('sync', { account: 45 }, { group: { id: 'tenant-8' } });
      await other.waitUntilFinished({ timeout: 10_000 });
      expect((await queue.getJob(tenant7.id))?.state).toBe('waiting');
      await queue.resumeGroup('tenant-7');
      await tenant7.waitUntilFinished({ timeout: 10_000 });

    } finally {
      await worker.close();
    }
    // Backpressure: past maxWaiting, add() throws QueueFullError and writes nothing.
    await queue.configure({ maxWaiting: 1 });
    await queue.add('sync', { account: 46 });
    await expect(queue.add('sync', { account: 47 })).rejects.toBeInstanceOf(QueueFullError);
    expect((await queue.getCounts()).waiting).toBe(1);
    h.queue('api-calls'); // verify() after the test
  });
});
