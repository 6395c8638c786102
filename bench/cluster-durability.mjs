// The cost of durability 'replicated' on a local Redis Cluster (3 masters + 3
// replicas, loopback), and what wake-ups cost there. Not a test: CI runs
// nothing here. Usage: npm run build && node bench/cluster-durability.mjs [--jobs=2000]
//
// Per mode ('async', 'replicated'): one producer adding jobs one by one (the
// latency an API request pays), then addBulk batches of 100, then
// concurrency-10 processing (complete WAITs too with 'replicated'). Reports
// ms per add, jobs/s, and the PUBLISH a job costs (INFO commandstats delta
// over all masters: in a cluster each PUBLISH is forwarded to every node).
import { Queue, RedisStore, Worker } from '../dist/esm/index.mjs';
import { RedisCluster, rawCommand } from '../test/helpers/redis-cluster.mjs';

const jobs = Number(process.argv.find((a) => a.startsWith('--jobs='))?.split('=')[1] ?? 2000);
const quiet = { log() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`) };

async function publishes(cluster) {
  let total = 0;
  for (const master of await cluster.masters()) {
    const info = await rawCommand(master.port, ['INFO', 'commandstats']);
    total += Number(/cmdstat_publish:calls=(\d+)/.exec(info)?.[1] ?? 0);
  }
  return total;
}

async function measure(cluster, durability) {
  const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix: `bench-${durability}`, durability, logger: quiet });
  await store.connect();
  const queue = new Queue('bench', { store });
  await queue.add('warm', {});
  let started = performance.now();
  for (let i = 0; i < jobs; i++) await queue.add('one', { i });
  const perAdd = (performance.now() - started) / jobs;
  started = performance.now();
  for (let i = 0; i < jobs; i += 100) await queue.addBulk(Array.from({ length: 100 }, (_, j) => ({ name: 'bulk', data: { j } })));
  const bulkRate = jobs / ((performance.now() - started) / 1000);
  const before = await publishes(cluster);
  const total = 2 * jobs + 1;
  let done = 0;
  started = performance.now();
  await new Promise((resolve) => {
    const worker = new Worker('bench', async () => undefined, { store, concurrency: 10 });
    worker.on('completed', () => {
      if (++done === total) void worker.close().then(resolve);
    });
  });
  const processRate = total / ((performance.now() - started) / 1000);
  const publishPerJob = ((await publishes(cluster)) - before) / total;
  await store.disconnect();
  return { durability, perAdd, bulkRate, processRate, publishPerJob };
}

const cluster = await RedisCluster.start();
try {
  const rows = [];
  for (const durability of ['async', 'replicated', 'async', 'replicated']) rows.push(await measure(cluster, durability));
  for (const r of rows) {
    console.log(
      `${r.durability.padEnd(10)} add: ${r.perAdd.toFixed(3)} ms each | addBulk(100): ${Math.round(r.bulkRate)} jobs/s | ` +
        `process c10: ${Math.round(r.processRate)} jobs/s | PUBLISH per processed job: ${r.publishPerJob.toFixed(2)}`,
    );
  }
} finally {
  await cluster.stop();
}
