// The cost of durability 'replicated' on a local Redis Cluster (3 masters + 3
// replicas, loopback), and what wake-ups cost there. Not a test: CI runs
// nothing here. Usage: npm run build && node bench/cluster-durability.mjs [--jobs=2000]
//
// Per mode ('async', 'replicated'): one producer adding jobs one by one (the
// latency an API request pays), then addBulk batches of 100, then
// concurrency-10 processing (complete WAITs too with 'replicated'). Reports
// ms per add, jobs/s, and what wake-ups cost per job over the whole run: PUBLISH
// calls (INFO commandstats) and the publish messages the cluster bus sent
// (CLUSTER INFO: in a cluster each PUBLISH is forwarded to every other node).
import { Queue, RedisStore, Worker } from '../dist/esm/index.mjs';
import { RedisCluster, rawCommand } from '../test/helpers/redis-cluster.mjs';

const jobs = Number(process.argv.find((a) => a.startsWith('--jobs='))?.split('=')[1] ?? 2000);
const quiet = { log() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`) };

/** PUBLISH calls on the masters, and the publish messages the cluster bus carried to other nodes. */
async function publishes(cluster) {
  let calls = 0;
  let forwarded = 0;
  for (const node of cluster.nodes.filter((n) => n.running)) {
    const stats = await rawCommand(node.port, ['INFO', 'commandstats']);
    calls += Number(/cmdstat_publish:calls=(\d+)/.exec(stats)?.[1] ?? 0);
    const info = await rawCommand(node.port, ['CLUSTER', 'INFO']);
    forwarded += Number(/cluster_stats_messages_publish_sent:(\d+)/.exec(info)?.[1] ?? 0);
  }
  return { calls, forwarded };
}

async function measure(cluster, durability) {
  const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix: `bench-${durability}`, durability, logger: quiet });
  await store.connect();
  const queue = new Queue('bench', { store });
  await queue.add('warm', {});
  const before = await publishes(cluster);
  let started = performance.now();
  for (let i = 0; i < jobs; i++) await queue.add('one', { i });
  const perAdd = (performance.now() - started) / jobs;
  started = performance.now();
  for (let i = 0; i < jobs; i += 100) await queue.addBulk(Array.from({ length: 100 }, (_, j) => ({ name: 'bulk', data: { j } })));
  const bulkRate = jobs / ((performance.now() - started) / 1000);
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
  const after = await publishes(cluster);
  // A trickle: an idle worker woken for each job added one by one (wake-ups are sent when workers sleep).
  const trickle = 300;
  let woken = 0;
  const idle = new Worker('bench', async () => undefined, { store, concurrency: 10 });
  idle.on('completed', () => void (woken += 1));
  await new Promise((r) => setTimeout(r, 200));
  const beforeTrickle = await publishes(cluster);
  for (let i = 0; i < trickle; i++) {
    const target = woken + 1;
    await queue.add('trickle', { i });
    while (woken < target) await new Promise((r) => setTimeout(r, 1));
  }
  const afterTrickle = await publishes(cluster);
  await idle.close();
  await store.disconnect();
  return {
    durability, perAdd, bulkRate, processRate,
    publishPerJob: (after.calls - before.calls) / total, busPerJob: (after.forwarded - before.forwarded) / total,
    tricklePublish: (afterTrickle.calls - beforeTrickle.calls) / trickle, trickleBus: (afterTrickle.forwarded - beforeTrickle.forwarded) / trickle,
  };
}

const cluster = await RedisCluster.start();
try {
  const rows = [];
  for (const durability of ['async', 'replicated', 'async', 'replicated']) rows.push(await measure(cluster, durability));
  for (const r of rows) {
    console.log(
      `${r.durability.padEnd(10)} add: ${r.perAdd.toFixed(3)} ms each | addBulk(100): ${Math.round(r.bulkRate)} jobs/s | ` +
        `process c10: ${Math.round(r.processRate)} jobs/s | per job, busy: ${r.publishPerJob.toFixed(2)} PUBLISH, ${r.busPerJob.toFixed(2)} bus msgs; ` +
        `trickle to an idle worker: ${r.tricklePublish.toFixed(2)} PUBLISH, ${r.trickleBus.toFixed(2)} bus msgs`,
    );
  }
} finally {
  await cluster.stop();
}
