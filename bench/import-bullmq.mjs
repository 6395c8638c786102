// How importFromBullMQ() scales: N jobs made by BullMQ itself (waiting, delayed
// and failed thirds), imported into Spool on the same private Redis, with the
// importer's peak memory (its heap and RSS sampled every 50 ms) and its rate.
// The importer reads a page at a time, so its memory should not grow with N:
// run it at two sizes and compare. Not a test: CI runs nothing here.
// Usage: npm run bench:import [-- --jobs=1000000 --batch=500]
import { performance } from 'node:perf_hooks';
import { Queue as BullQueue } from 'bullmq';
import { createClient } from 'redis';
import { BenchRedis } from '../dist-bench/bench/redis-server.js';
import { Queue, RedisStore, importFromBullMQ } from '../dist-bench/lib/engine/index.js';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const jobs = arg('jobs', 100_000);
const batchSize = arg('batch', 500);
const MB = 1024 * 1024;

const redis = await BenchRedis.start();
const admin = createClient({ url: redis.url });
const store = new RedisStore({ url: redis.url }, { prefix: 'spool' });
try {
  await admin.connect();
  await store.connect();
  const { hostname, port } = new URL(redis.url);
  const bull = new BullQueue('mail', { connection: { host: hostname, port: Number(port) }, prefix: 'bull' });

  // BullMQ's own adds for waiting and delayed jobs; failed ones are waiting jobs moved by one script per page
  // (what a worker's moveToFailed leaves: the failed zset, failedReason, stacktrace, attemptsMade).
  const made = performance.now();
  const third = Math.floor(jobs / 3);
  for (let from = 0; from < jobs; from += 1000) {
    const count = Math.min(1000, jobs - from);
    await bull.addBulk(Array.from({ length: count }, (_, k) => {
      const i = from + k;
      const opts = i < third ? { attempts: 3 } : i < 2 * third ? { delay: 30 * 24 * 3600_000, attempts: 3 } : { attempts: 1 };
      return { name: 'send', data: { to: `user${i}@example.com`, i }, opts };
    }));
  }
  const FAIL = `local ids = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
for _, id in ipairs(ids) do
  redis.call('LREM', KEYS[1], 1, id)
  redis.call('ZADD', KEYS[2], ARGV[2], id)
  redis.call('HSET', ARGV[3] .. id, 'failedReason', 'smtp refused', 'stacktrace', '["Error: smtp refused\\n    at send (mail.js:1:1)"]', 'attemptsMade', '1', 'finishedOn', ARGV[2])
end
return #ids`;
  // The newest waiting ids sit at the list's left end: the last third, made with attempts: 1.
  for (let left = jobs - 2 * third; left > 0; ) {
    left -= Number(await admin.eval(FAIL, { keys: ['bull:mail:wait', 'bull:mail:failed'], arguments: [String(Math.min(1000, left)), String(Date.now()), 'bull:mail:'] }));
  }
  const madeS = (performance.now() - made) / 1000;
  const bullMemory = Number(/^used_memory:(\d+)/m.exec(await admin.info('memory'))[1]);

  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  global.gc?.();
  sample();
  const baseRss = process.memoryUsage().rss;
  const baseHeap = process.memoryUsage().heapUsed;
  const sampler = setInterval(sample, 50);
  const t = performance.now();
  // Live heap after a full GC, every tenth of the way: what the importer holds, not what V8 has yet to collect.
  const retained = [];
  const pagesPerMark = Math.max(1, Math.round(jobs / batchSize / 10));
  let pages = 0;
  const onProgress = () => {
    if (++pages % pagesPerMark !== 0 || !global.gc) return;
    global.gc();
    retained.push(Math.round((process.memoryUsage().heapUsed - baseHeap) / MB));
  };
  const report = await importFromBullMQ({ from: redis.url, queue: 'mail', store, batchSize, onProgress });
  const importS = (performance.now() - t) / 1000;
  clearInterval(sampler);
  sample();

  const imported = report.queues[0].states;
  const total = Object.values(imported).reduce((n, s) => n + s.imported, 0);
  const counts = await new Queue('mail', { store }).getCounts();
  console.log(`node ${process.version}, ${jobs} BullMQ jobs (made in ${madeS.toFixed(1)} s; Redis used_memory ${(bullMemory / MB).toFixed(0)} MB), batchSize ${batchSize}`);
  console.log(`imported ${total} in ${importS.toFixed(1)} s = ${(total / importS).toFixed(0)} jobs/s`);
  console.log(`per state: ${Object.entries(imported).map(([s, v]) => `${s} ${v.found} found / ${v.imported} imported`).join(', ')}`);
  console.log(`spool counts: ${JSON.stringify(counts)}`);
  console.log(`importer memory: peak RSS ${(peakRss / MB).toFixed(0)} MB (+${((peakRss - baseRss) / MB).toFixed(0)} MB over start), peak heap ${(peakHeap / MB).toFixed(0)} MB (+${((peakHeap - baseHeap) / MB).toFixed(0)} MB)`);
  console.log(`live heap over start after a full GC, each tenth of the import (MB): ${retained.join(' ')}`);
  await bull.close();
} finally {
  await store.disconnect().catch(() => undefined);
  await admin.quit().catch(() => undefined);
  await redis.stop();
}
