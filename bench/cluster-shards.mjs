// One queue over 3 Redis Cluster masters (Queue option `shards`) against the
// same queue on one Redis: throughput and where the Redis work went. Not a
// test: CI runs nothing here. Usage: npm run bench:shards [-- --jobs=20000 --repeat=3]
//
// Rows, each with a fresh keyspace: 'one Redis' (a single redis-server),
// 'cluster, 1 shard' (the whole queue on one master, as BullMQ would have
// it), 'cluster, shards: 3' (one shard per master). Per row: bulk add of
// `jobs` jobs (1,000 per call), then one worker at concurrency 100 until all
// completed. Reported: jobs/s for both, the Redis commands per processed job
// (INFO commandstats summed over the masters) and the share of them each
// master executed. CAVEAT: this machine has 2 cores shared by node and every
// redis-server, so a spread over 3 masters cannot show its real gain here;
// the per-master share shows the load is split, which is what lets a bigger
// machine (or several) go faster.
import { Queue, RedisStore, Worker } from '../dist/esm/index.mjs';
import { RedisCluster, rawCommand } from '../test/helpers/redis-cluster.mjs';
import { RedisServer } from '../test/helpers/redis-server.mjs';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const jobs = arg('jobs', 20_000);
const repeat = arg('repeat', 1);
const quiet = { log() {}, warn() {}, error: (m) => process.stderr.write(`${m}\n`) };

/** Commands executed per node (scripts' own calls included), from INFO commandstats. */
async function commandsPerNode(ports) {
  const counts = [];
  for (const port of ports) {
    const stats = await rawCommand(port, ['INFO', 'commandstats']);
    let calls = 0;
    for (const m of stats.matchAll(/cmdstat_(\w+):calls=(\d+)/g)) if (m[1] !== 'info' && m[1] !== 'config') calls += Number(m[2]);
    counts.push(calls);
  }
  return counts;
}

async function resetStats(ports) {
  for (const port of ports) await rawCommand(port, ['CONFIG', 'RESETSTAT']);
}

async function row(label, connect, ports, shards) {
  let best = { addRate: 0, processRate: 0, perJob: 0, shares: [] };
  for (let r = 0; r < repeat; r++) {
    const store = connect(`shards-${label.replace(/\W+/g, '')}-${r}-${Date.now()}`);
    await store.connect();
    const queue = new Queue('bench', { store, shards, defaultJobOptions: { removeOnComplete: true } });
    let started = performance.now();
    for (let i = 0; i < jobs; i += 1000) await queue.addBulk(Array.from({ length: Math.min(1000, jobs - i) }, (_, j) => ({ name: 'n', data: { i: i + j } })));
    const addRate = jobs / ((performance.now() - started) / 1000);
    await resetStats(ports);
    let done = 0;
    started = performance.now();
    await new Promise((resolve) => {
      const worker = new Worker('bench', async () => undefined, { store, shards, concurrency: 100 });
      worker.on('completed', () => {
        if (++done === jobs) void worker.close().then(resolve);
      });
    });
    const processRate = jobs / ((performance.now() - started) / 1000);
    const counts = await commandsPerNode(ports);
    const total = counts.reduce((a, b) => a + b, 0);
    await store.disconnect();
    if (processRate > best.processRate) best = { addRate: Math.max(addRate, best.addRate), processRate, perJob: total / jobs, shares: counts.map((c) => c / total) };
  }
  return { label, ...best };
}

const single = await RedisServer.start();
const cluster = await RedisCluster.start({ replicasPerMaster: 0 });
try {
  const masters = (await cluster.masters()).map((m) => m.port);
  const rows = [
    await row('one Redis', (prefix) => new RedisStore({ url: single.url, prefix, logger: quiet }), [single.port], 1),
    await row('cluster, 1 shard', (prefix) => new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: quiet }), masters, 1),
    await row('cluster, shards: 3', (prefix) => new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: quiet }), masters, 3),
  ];
  console.log(`${jobs} jobs, bulk add then process at concurrency 100, removeOnComplete, best of ${repeat}`);
  for (const r of rows) {
    const shares = r.shares.map((s) => `${Math.round(s * 100)}%`).join(' / ');
    console.log(`${r.label.padEnd(20)} add ${String(Math.round(r.addRate)).padStart(7)} jobs/s | process ${String(Math.round(r.processRate)).padStart(6)} jobs/s (${(r.processRate / rows[0].processRate).toFixed(2)}x one Redis) | ${r.perJob.toFixed(1)} cmds/job | per master: ${shares}`);
  }
} finally {
  await cluster.stop();
  await single.dispose();
}
