import { RedisStore, Worker } from '../../lib/index.js';
import { loadScript } from '../../lib/store/script-loader.js';
import { silentLogger } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { Ledger } from './support/ledger.js';
import { ownRedis } from './support/own-redis.js';
import { ReplyCutter } from './support/reply-cutter.js';
import { scenario, tolerant, type Scenario } from './support/scenario.js';

// Connections cut under a running system. Own redis-server: CLIENT KILL and
// SCRIPT FLUSH would hit every suite on a shared one.
describe('chaos: connections killed and scripts flushed mid-run', () => {
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  let s: Scenario;

  beforeAll(async () => {
    redis = await ownRedis();
  });
  afterAll(async () => {
    await redis.dispose();
  });
  beforeEach(async () => {
    s = await scenario(redis.url, { lockDuration: 1500, stalledInterval: 400, pollInterval: 60_000, concurrency: 4 });
  });
  afterEach(async () => {
    await s.dispose();
  });

  it('CLIENT KILL of normal and pub/sub connections and SCRIPT FLUSH are transparent: nothing lost or unexpected', async () => {
    const admin = await redis.admin();
    const workers = [await s.worker(), await s.worker()];
    const ledger = new Ledger();
    const producing = ledger.produce(s.queue, 2, () => ({ mode: 'ok', ms: 5 }));
    const acknowledged = (n: number) => waitFor(() => ledger.acknowledged.size >= n, { timeout: 20_000, interval: 20, message: `${n} jobs acknowledged` });
    await acknowledged(100);
    await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
    await acknowledged(200);
    await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    await acknowledged(300);
    await admin.sendCommand(['SCRIPT', 'FLUSH']);
    await acknowledged(400);
    ledger.stop();
    await producing;
    await waitFor(
      tolerant(async () => {
        const c = await s.queue.getCounts();
        return c.waiting + c.active + c.delayed === 0;
      }),
      { timeout: 30_000, interval: 100, message: 'every job finished' },
    );
    // Subscriptions came back: a new job is woken by pub/sub, not the one-minute poll.
    await s.queue.add('work', { mode: 'ok' }, { jobId: 'after-kills' });
    await waitFor(async () => (await s.queue.getJob('after-kills'))?.state === 'completed', { timeout: 5000, interval: 20, message: 'woken after the kills' });

    const tally = ledger.tally(await s.store.listIds('q', 'completed', 0, -1), workers);
    expect({ lost: tally.lost, unexpected: tally.unexpected.filter((id) => id !== 'after-kills') }).toEqual({ lost: [], unexpected: [] });
    expect(workers.every((w) => w.alive)).toBe(true);
    expect(await s.end()).toEqual([]);
  });

  describe('a reply lost after the script ran', () => {
    let cutter: ReplyCutter;
    let store: RedisStore;
    let worker: Worker | undefined;
    const runs = new Map<string, number>();
    const completions: string[] = [];

    beforeEach(async () => {
      cutter = await ReplyCutter.start(redis.server.port);
      store = new RedisStore({ url: cutter.url }, { prefix: s.prefix, logger: silentLogger });
      await store.connect();
      runs.clear();
      completions.length = 0;
    });
    /** The worker under test, on the cutter's connection. */
    const startWorker = async () => {
      worker = new Worker(
        'q',
        async (job) => {
          runs.set(job.id, (runs.get(job.id) ?? 0) + 1);
          return 'done';
        },
        { store, logger: silentLogger, lockDuration: 1000, stalledInterval: 300, pollInterval: 500 },
      );
      worker.on('error', () => undefined);
      worker.on('completed', (job) => completions.push(job.id));
      await worker.run();
    };
    afterEach(async () => {
      await worker?.close({ timeout: 2000 });
      await store.disconnect();
      await cutter.close();
    });

    it('after a claim: the claimed job is reaped and runs once', async () => {
      const cut = cutter.armOn(loadScript('claim').sha);
      // Added before the worker starts, so its first claim takes it (an idle worker is leased new jobs by the add itself).
      await s.queue.add('work', {}, { jobId: 'claimed-blind' });
      await startWorker();
      await cut;
      await waitFor(async () => (await s.queue.getJob('claimed-blind'))?.state === 'completed', { timeout: 15_000, interval: 50, message: 'job completed' });
      expect(runs.get('claimed-blind')).toBe(1);
      expect((await s.queue.getJob('claimed-blind'))!.stalled).toBe(1);
      // The event follows the acknowledged write, which the test may see first.
      await waitFor(() => completions.length > 0, { timeout: 5000, message: 'the completed event' });
      expect(completions).toEqual(['claimed-blind']);
      expect(await s.end()).toEqual([]);
    });

    it('after a complete: the retry with the same token succeeds idempotently, one completed event', async () => {
      await startWorker();
      const cut = cutter.armOn(loadScript('complete').sha);
      await s.queue.add('work', {}, { jobId: 'completed-blind' });
      await cut;
      await waitFor(() => completions.length > 0, { timeout: 15_000, interval: 20, message: 'completed event' });
      const job = (await s.queue.getJob('completed-blind'))!;
      expect(job.state).toBe('completed');
      expect(job.result).toBe('done');
      expect(job.stalled).toBe(0);
      expect(runs.get('completed-blind')).toBe(1);
      // Give a second (wrong) event time to show up before counting.
      await worker!.close({ timeout: 2000 });
      expect(completions).toEqual(['completed-blind']);
      expect(await s.end()).toEqual([]);
    });
  });
});
