import * as bullmq from 'bullmq';
import { importFromBullMQ, Queue, RedisStore, Worker } from '../../lib/index.js';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { connectionOf } from './bullmq-fixture.js';

/**
 * docs/migrating/switching.md, end to end, under continuous adds: a real
 * BullMQ worker and a Spool worker on one Redis; producers move from BullMQ
 * to Spool through a rolling deploy (both kinds at once, plus reminders the
 * new code schedules again in Spool while BullMQ still holds them); BullMQ
 * drains; its worker stops; what is left (delayed jobs) is imported. Every
 * job a producer was acknowledged for runs, and none twice.
 */
describe('switching a live system from BullMQ to Spool', () => {
  const redis = usePrivateRedis();
  const bullPrefix = uniquePrefix('bull');
  const prefix = uniquePrefix('switch');

  it('runs every job exactly once through the documented steps', async () => {
    const connection = connectionOf(redis.url);
    const bullQueue = new bullmq.Queue('orders', { connection, prefix: bullPrefix });
    const store = new RedisStore({ url: redis.url, prefix });
    await store.connect();
    const queue = new Queue<{ n: number }>('orders', { store });
    const ranOnBull = new Map<string, number>();
    const ranOnSpool = new Map<string, number>();
    const count = (ran: Map<string, number>, id: string): void => void ran.set(id, (ran.get(id) ?? 0) + 1);
    const bullWorker = new bullmq.Worker('orders', async (job) => count(ranOnBull, job.id!), { connection, prefix: bullPrefix, concurrency: 4 });
    let spoolWorker: Worker<{ n: number }> | undefined;
    let side = 'bullmq' as 'bullmq' | 'rolling' | 'spool';
    let stop = false;
    const acked: string[] = [];
    // Every 5th job is delayed, so BullMQ still holds some when its worker stops.
    const delayOf = (n: number): number => (n % 5 === 0 ? 1000 + (n % 3) * 500 : 0);
    const producing = (async () => {
      for (let n = 0; !stop; n++) {
        const jobId = `order-${n}`;
        // The rolling deploy: old and new producer instances at once, each job through one of them.
        const toSpool = side === 'spool' || (side === 'rolling' && n % 2 === 0);
        if (toSpool) await queue.add('order', { n }, { jobId, delay: delayOf(n) });
        else await bullQueue.add('order', { n }, { jobId, delay: delayOf(n) });
        acked.push(jobId);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      await waitFor(() => acked.length >= 40 && ranOnBull.size >= 20, { timeout: 10_000, message: 'BullMQ running jobs' });

      // 1. Deploy Spool workers next to BullMQ's.
      spoolWorker = new Worker<{ n: number }>('orders', async (job) => count(ranOnSpool, job.id), { store, concurrency: 4, pollInterval: 200 });
      await waitFor(async () => (await queue.getWorkers()).length === 1, { message: 'the Spool worker listed' });

      // 2. Switch producers, through a rolling deploy.
      side = 'rolling';
      const atRolling = acked.length;
      await waitFor(() => acked.length >= atRolling + 40, { timeout: 10_000, message: 'adds during the rolling deploy' });
      // The new code schedules reminders again that the old code put in BullMQ: the jobId keeps one of each.
      for (let k = 0; k < 3; k++) {
        await bullQueue.add('remind', { n: -1 }, { jobId: `remind-${k}`, delay: 60_000 });
        await queue.add('remind', { n: -1 }, { jobId: `remind-${k}`, delay: 500 });
        // A retried request of the new code: the same jobId adds nothing.
        await queue.add('remind', { n: -1 }, { jobId: `remind-${k}`, delay: 500 });
        acked.push(`remind-${k}`);
      }
      side = 'spool';
      const bullAdded = acked.length;

      // 3. Let BullMQ's workers drain active and waiting (delayed jobs stay).
      await waitFor(async () => Object.values(await bullQueue.getJobCounts('active', 'wait', 'prioritized')).every((c) => c === 0), { timeout: 10_000, message: 'BullMQ drained' });
      // Delayed jobs come due meanwhile: BullMQ's workers stop before the import, so none runs on both sides.
      await bullWorker.close();

      // 4. Import what is left, removing BullMQ's copies as it goes, while producers keep adding to Spool.
      // BullMQ's Redis as a BullMQ config has it: { host, port }.
      const report = await importFromBullMQ({ from: { host: '127.0.0.1', port: connection.port }, queue: 'orders', bullPrefix, store, states: ['wait', 'prioritized', 'delayed', 'failed', 'waiting-children', 'schedulers'], removeImported: true });
      const delayed = report.queues[0]!.states.delayed!;
      expect(delayed.found).toBeGreaterThan(3);
      // The reminders Spool already had are not imported again.
      expect(delayed.existing).toBe(3);
      expect(delayed.imported).toBe(delayed.found - 3);
      await waitFor(() => acked.length >= bullAdded + 30, { timeout: 10_000, message: 'adds after the import' });
      stop = true;
      await producing;

      // 5. BullMQ's workers are gone; Spool runs the rest.
      await waitFor(() => acked.every((id) => ranOnBull.has(id) || ranOnSpool.has(id)), { timeout: 15_000, interval: 50, message: 'every acknowledged job to run' });
      const twice = acked.filter((id) => (ranOnBull.get(id) ?? 0) + (ranOnSpool.get(id) ?? 0) !== 1);
      expect(twice).toEqual([]);
      expect(ranOnBull.size + ranOnSpool.size).toBe(acked.length);
      expect(ranOnBull.size).toBeGreaterThan(20);
      expect(ranOnSpool.size).toBeGreaterThan(40);
      expect(await queue.verify()).toEqual([]);
      // --remove-imported emptied BullMQ's side, the reminders Spool already had included.
      expect(await bullQueue.getJobCounts('wait', 'active', 'delayed', 'prioritized', 'failed')).toEqual({ wait: 0, active: 0, delayed: 0, prioritized: 0, failed: 0 });
    } finally {
      stop = true;
      await producing.catch(() => undefined);
      await bullWorker.close();
      await spoolWorker?.close();
      await bullQueue.close();
      await store.disconnect();
    }
  }, 60_000);
});
