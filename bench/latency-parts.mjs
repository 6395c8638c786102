// Where an idle worker's add-to-start latency goes, for Spool, BullMQ and
// bee-queue in one run on one Redis: one add at a time to a concurrency-1
// worker (as the bench's latency row), timing from the add call when the
// producer's command left (first socket write), when add returned and when
// the handler started; for Spool also when the woken worker sent its claim
// (store.claim wrapped) and got its reply, or that the add pushed the job to
// it (no claim: lua/includes/push). p50 of each, in ms from the add
// call; and what Redis spent on each command of the timed adds (SLOWLOG
// at threshold 0: p50 us per call, calls per add). Also a plain PING with the same pause between calls: one round trip
// to a Redis that was idle. Not a test: CI runs nothing here.
// Usage: npm run bench:latency-parts [-- --samples=300 --gap=5]
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import BeeQueue from 'bee-queue';
import { Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import { createClient } from 'redis';
import { BenchRedis } from '../dist-bench/bench/redis-server.js';
import { scriptNames } from '../dist-bench/bench/script-names.js';
import { Queue, RedisStore, Worker } from '../dist-bench/lib/index.js';

const arg = (name, fallback) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback);
const samples = arg('samples', 300);
const gap = arg('gap', 5);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const p50 = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];

// The first socket write after the add call: when the producer's command left node.
let firstWrite = 0;
let watching = false;
const write = net.Socket.prototype.write;
net.Socket.prototype.write = function (...args) {
  if (watching && firstWrite === 0) firstWrite = performance.now();
  return write.apply(this, args);
};

/**
 * `samples` timed adds, `gap` ms apart: add(i) resolves when the producer's
 * add does, done(i) when job i's handler has run (its start time, or
 * undefined to drop the sample). Returns the parts' p50s.
 */
async function timeAdds(add, started, extra = () => ({})) {
  const parts = {};
  await slowlogOn();
  const push = (name, value) => (parts[name] ??= []).push(value);
  for (let i = 0; i < samples; i++) {
    await sleep(gap);
    firstWrite = 0;
    watching = true;
    const t0 = performance.now();
    const handlerRan = started(i);
    await add(i);
    const returned = performance.now();
    watching = false;
    const at = await handlerRan;
    const more = extra(t0);
    if (at === undefined || more === undefined) continue;
    push('command sent', firstWrite - t0);
    push('add() returned', returned - t0);
    for (const [name, value] of Object.entries(more)) push(name, value);
    push('handler started', at - t0);
  }
  const redisTime = await slowlogOff();
  // 'pushed' is 0/1 per add: its mean is the share of adds pushed; every other part is a p50.
  const summary = ([name, values]) => [name, name === 'pushed' ? values.reduce((a, b) => a + b, 0) / values.length : p50(values)];
  return { parts: Object.fromEntries(Object.entries(parts).map(summary)), redisTime };
}

const SCRIPTS = scriptNames();
let admin;

async function slowlogOn() {
  await admin.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '0']);
  await admin.sendCommand(['CONFIG', 'SET', 'slowlog-max-len', '1000000']);
  await admin.sendCommand(['SLOWLOG', 'RESET']);
}

/** Redis time per command (a script by its name), p50 us and calls per add, from SLOWLOG; then logging off. */
async function slowlogOff() {
  const entries = await admin.sendCommand(['SLOWLOG', 'GET', '-1']);
  await admin.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '10000']);
  const byName = new Map();
  for (const [, , micros, args] of entries) {
    const command = String(args[0]).toUpperCase();
    if (command === 'SLOWLOG' || command === 'CONFIG') continue;
    const name = command === 'EVALSHA' ? (SCRIPTS.get(String(args[1])) ?? `EVALSHA ${String(args[1]).slice(0, 8)}`) : command;
    if (!byName.has(name)) byName.set(name, []);
    byName.get(name).push(Number(micros));
  }
  return [...byName]
    .map(([name, micros]) => ({ name, p50: p50(micros), perAdd: micros.length / samples }))
    .filter((c) => c.perAdd >= 0.5)
    .sort((a, b) => b.p50 * b.perAdd - a.p50 * a.perAdd);
}

/** A promise per job index, resolved with its handler's start time. */
function starts() {
  const waiting = new Map();
  return {
    started: (i) => new Promise((resolve) => waiting.set(i, resolve)),
    ran: (i) => {
      waiting.get(i)?.(performance.now());
      waiting.delete(i);
    },
  };
}

async function spool(url) {
  const store = new RedisStore({ url }, { prefix: 'latency' });
  await store.connect();
  let claimSent = 0;
  let claimBack = 0;
  const claim = store.claim.bind(store);
  store.claim = async (...args) => {
    claimSent = performance.now();
    const outcome = await claim(...args);
    claimBack = performance.now();
    return outcome;
  };
  const queue = new Queue('latency', { store });
  const s = starts();
  const worker = new Worker('latency', async (job) => s.ran(job.data.i), { store, concurrency: 1 });
  await worker.run();
  for (let i = 0; i < 100; i++) await queue.add('warm', { i: -1 });
  await sleep(200);
  try {
    return await timeAdds(
      (i) => queue.add('timed', { i }),
      s.started,
      // No claim after the add: the add pushed the job to the idle worker (lua/includes/push).
      (t0) => (claimSent < t0 ? { pushed: 1 } : { 'claim sent': claimSent - t0, 'claim answered': claimBack - t0, pushed: 0 }),
    );
  } finally {
    await worker.close();
    await store.disconnect();
  }
}

async function bullmq(url) {
  const { hostname, port } = new URL(url);
  const connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
  const queue = new BullQueue('latency', { connection, prefix: 'bull' });
  const s = starts();
  const worker = new BullWorker('latency', async (job) => s.ran(job.data.i), { connection, prefix: 'bull', concurrency: 1 });
  await worker.waitUntilReady();
  for (let i = 0; i < 100; i++) await queue.add('warm', { i: -1 });
  await sleep(200);
  try {
    return await timeAdds((i) => queue.add('timed', { i }), s.started);
  } finally {
    await worker.close();
    await queue.close();
  }
}

async function bee(url) {
  const { hostname, port } = new URL(url);
  const redis = { host: hostname, port: Number(port) };
  const producer = new BeeQueue('latency', { redis, isWorker: false, getEvents: false });
  const worker = new BeeQueue('latency', { redis });
  const s = starts();
  worker.process(1, async (job) => s.ran(job.data.i));
  await Promise.all([producer.ready(), worker.ready()]);
  for (let i = 0; i < 100; i++) await producer.createJob({ i: -1 }).save();
  await sleep(200);
  try {
    return await timeAdds((i) => producer.createJob({ i }).save(), s.started);
  } finally {
    await worker.close();
    await producer.close();
  }
}

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
  admin = createClient({ url: redis.url });
  await admin.connect();
  const results = {};
  const redisTimes = {};
  for (const [name, run] of [['Spool', spool], ['BullMQ', bullmq], ['bee-queue', bee]]) {
    ({ parts: results[name], redisTime: redisTimes[name] } = await run(redis.url));
  }
  console.log(`one round trip to an idle Redis (PING after ${gap} ms): p50 ${p50(pings).toFixed(3)} ms`);
  console.log(`one add at a time to an idle concurrency-1 worker, ${samples} samples, p50 in ms from the add call:`);
  const rows = ['command sent', 'add() returned', 'claim sent', 'claim answered', 'handler started'];
  const names = Object.keys(results);
  console.log(`  ${''.padEnd(18)}${names.map((n) => n.padStart(10)).join('')}`);
  for (const row of rows) {
    console.log(`  ${row.padEnd(18)}${names.map((n) => (results[n][row] === undefined ? '-' : results[n][row].toFixed(3)).padStart(10)).join('')}`);
  }
  const after = names.map((n) => `${n} ${(results[n]['handler started'] - results[n]['add() returned']).toFixed(3)}`);
  console.log(`  handler start after add() returned: ${after.join(', ')}`);
  console.log(`  Spool: ${(100 * results.Spool.pushed).toFixed(0)}% of the adds pushed their job to the idle worker (no claim; claim rows: the others)`);
  console.log('Redis time per call (SLOWLOG, p50 us x calls per add; scripts include the commands they run, listed after them):');
  for (const n of names) {
    console.log(`  ${n}: ${redisTimes[n].map((c) => `${c.name} ${c.p50} x${c.perAdd.toFixed(1)}`).join(', ')}`);
  }
  await admin.quit();
} finally {
  await redis.stop();
}
