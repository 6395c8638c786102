// What a waiting job costs in Redis memory, and what removing one from a
// backlog costs, Spool vs BullMQ, for plain (FIFO) jobs and prioritized ones:
// both keep plain waiting jobs in a list (cheap to hold, O(n) to remove
// from: LREM; Spool's since its fifo lane, lua/includes/place) and
// prioritized ones in a sorted set (O(log n) to remove from).
// used_memory grown per job after bulk adds (1,000 per call); removal is the
// mean of cancelling (Spool) / removing (BullMQ) 100 jobs from the middle of
// the backlog, one at a time. Not a test: CI runs nothing here.
// Usage: npm run bench:waiting-memory [-- --jobs=20000]
import { performance } from 'node:perf_hooks';
import { Queue as BullQueue } from 'bullmq';
import { createClient } from 'redis';
import { BenchRedis } from '../dist-bench/bench/redis-server.js';
import { Queue, RedisStore } from '../dist-bench/lib/index.js';

const jobs = Number(process.argv.find((a) => a.startsWith('--jobs='))?.split('=')[1] ?? 20000);
const REMOVED = 100;
const batch = (from, priority) =>
  Array.from({ length: Math.min(1000, jobs - from) }, (_, k) => ({ name: 'noop', data: { i: from + k, g: 0 }, opts: priority ? { priority } : undefined }));

const redis = await BenchRedis.start();
const admin = createClient({ url: redis.url });
const store = new RedisStore({ url: redis.url }, { prefix: 'bench' });
try {
  await admin.connect();
  await store.connect();
  const used = async () => Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))[1]);
  const { hostname, port } = new URL(redis.url);
  /**
   * Where the bytes sit: MEMORY USAGE of every key (the value, its key name
   * and its entry in the keyspace), job hashes summed as one kind, per job.
   * used_memory grows by more (the keyspace's own table, allocator slack).
   */
  const byKind = async (isJob) => {
    const sums = new Map();
    for (const key of await admin.keys('*')) {
      const kind = isJob(key) ? 'job hashes' : key.slice(key.lastIndexOf(':') + 1);
      sums.set(kind, (sums.get(kind) ?? 0) + Number(await admin.sendCommand(['MEMORY', 'USAGE', key, 'SAMPLES', '0'])));
    }
    return [...sums].filter(([, bytes]) => bytes / jobs >= 0.5).map(([kind, bytes]) => `${kind} ${(bytes / jobs).toFixed(0)}`).join(', ');
  };
  const mean = async (ids, remove) => {
    const t = performance.now();
    for (const id of ids) await remove(id);
    return ((performance.now() - t) / ids.length).toFixed(3);
  };
  console.log(`${jobs} waiting jobs; node ${process.version}`);
  for (const priority of [0, 5]) {
    await admin.flushAll();
    let before = await used();
    const spool = new Queue(`spool-${priority}`, { store });
    for (let from = 0; from < jobs; from += 1000) await spool.addBulk(batch(from, priority));
    const spoolBytes = ((await used()) - before) / jobs;
    const spoolParts = await byKind((key) => key.includes(':job:'));
    const spoolIds = (await spool.getJobs('waiting', { start: jobs / 2, end: jobs / 2 + REMOVED - 1 })).map((j) => j.id);
    const spoolMs = await mean(spoolIds, (id) => spool.cancel(id));

    await admin.flushAll();
    before = await used();
    const bull = new BullQueue(`bull-${priority}`, { connection: { host: hostname, port: Number(port) }, prefix: 'bull' });
    for (let from = 0; from < jobs; from += 1000) await bull.addBulk(batch(from, priority));
    const bullBytes = ((await used()) - before) / jobs;
    const bullParts = await byKind((key) => /:\d+$/.test(key));
    const bullIds = (await bull.getJobs([priority ? 'prioritized' : 'waiting'], jobs / 2, jobs / 2 + REMOVED - 1)).map((j) => j.id);
    const bullMs = await mean(bullIds, (id) => bull.remove(id));
    await bull.close();
    console.log(
      `${priority ? 'priority 5' : 'no priority'}: bytes per waiting job Spool ${spoolBytes.toFixed(0)}, BullMQ ${bullBytes.toFixed(0)};` +
        ` ms to take one out of the backlog Spool ${spoolMs}, BullMQ ${bullMs}\n` +
        `  MEMORY USAGE per job: Spool ${spoolParts}; BullMQ ${bullParts}`,
    );
  }
} finally {
  await store.disconnect();
  await admin.quit();
  await redis.stop();
}
