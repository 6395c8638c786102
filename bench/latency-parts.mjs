// Where an idle worker's add-to-start latency goes: one add at a time to a
// concurrency-1 worker (as the bench's latency row), timing when add()
// returned, when the worker sent its claim (store.claim wrapped), when the
// claim's reply came back, and when the handler started; p50 of each, from
// the add() call. Also a plain PING with the same pause between calls: the
// cost of one round trip to a Redis that was idle. Not a test: CI runs
// nothing here. Usage: npm run bench:latency-parts [-- --samples=300 --gap=5]
import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import { BenchRedis } from '../dist-bench/bench/redis-server.js';
import { Queue, RedisStore, Worker } from '../dist-bench/lib/index.js';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const samples = arg('samples', 300);
const gap = arg('gap', 5);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const p50 = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)].toFixed(3);

const redis = await BenchRedis.start();
try {
  const ping = createClient({ url: redis.url });
  await ping.connect();
  const pings = [];
  for (let i = 0; i < samples; i++) {
    await sleep(gap);
    const t = performance.now();
    await ping.ping();
    pings.push(performance.now() - t);
  }
  await ping.quit();

  const store = new RedisStore({ url: redis.url }, { prefix: 'latency' });
  await store.connect();
  let claimSent = 0;
  let claimBack = 0;
  let started = 0;
  const claim = store.claim.bind(store);
  store.claim = async (...args) => {
    claimSent = performance.now();
    const outcome = await claim(...args);
    claimBack = performance.now();
    return outcome;
  };
  const queue = new Queue('latency', { store });
  const worker = new Worker('latency', async () => void (started = performance.now()), { store, concurrency: 1 });
  await worker.run();
  for (let i = 0; i < 100; i++) await queue.add('warm', i);
  await sleep(200);
  const parts = { 'add() returned': [], 'claim sent': [], 'claim answered': [], 'handler started': [] };
  for (let i = 0; i < samples; i++) {
    await sleep(gap);
    const completed = new Promise((resolve) => worker.once('completed', resolve));
    claimSent = 0;
    const t0 = performance.now();
    await queue.add('timed', i);
    const returned = performance.now();
    await completed;
    if (claimSent < t0) continue; // the job rode on a completion's claim, not a woken one
    parts['add() returned'].push(returned - t0);
    parts['claim sent'].push(claimSent - t0);
    parts['claim answered'].push(claimBack - t0);
    parts['handler started'].push(started - t0);
  }
  await worker.close();
  await store.disconnect();
  console.log(`one round trip to an idle Redis (PING after ${gap} ms): p50 ${p50(pings)} ms`);
  console.log(`add to a concurrency-1 worker, ${parts['handler started'].length} samples, p50 from the add() call, ms:`);
  for (const [name, values] of Object.entries(parts)) console.log(`  ${name.padEnd(16)} ${p50(values)}`);
} finally {
  await redis.stop();
}
