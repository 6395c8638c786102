// Soak: 200,000 jobs through 4 worker processes while a fault rotates every
// few seconds (worker SIGKILL, Redis SIGKILL + restart from its AOF, CLIENT
// KILL of every connection), then heal, drain and count, Jepsen style.
// Exits 1 unless lost = 0 and unexpected = 0. Bounded to 10 minutes.
// Run with `npm run soak` (builds dist/ first). Env: SOAK_JOBS, SOAK_WORKERS,
// SOAK_FAULT_EVERY_MS, SOAK_CONCURRENCY.
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { createClient } from 'redis';
import { Queue, RedisStore } from '../../dist/esm/engine.mjs';
import { RedisServer } from '../helpers/redis-server.mjs';

const TOTAL = Number(process.env.SOAK_JOBS ?? 200_000);
const WORKERS = Number(process.env.SOAK_WORKERS ?? 4);
const FAULT_EVERY = Number(process.env.SOAK_FAULT_EVERY_MS ?? 4000);
const CONCURRENCY = Number(process.env.SOAK_CONCURRENCY ?? 16);
const LIMIT_MS = 10 * 60 * 1000;
const BATCH = 500;
const FIXTURE = join(process.cwd(), 'test', 'chaos', 'support', 'chaos-worker.mjs');
const workerOptions = { concurrency: CONCURRENCY, lockDuration: 5000, stalledInterval: 1000, pollInterval: 1000 };

const startedAt = Date.now();
const elapsed = () => ((Date.now() - startedAt) / 1000).toFixed(1);
const log = (line) => process.stdout.write(`[soak ${elapsed()}s] ${line}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quiet = { log: () => undefined, warn: () => undefined, error: () => undefined };

const server = await RedisServer.start({ appendonly: true });
const prefix = `soak-${process.pid}`;
const url = server.url;
const children = new Set();

// Everything ends by 10 minutes, whatever happens.
const watchdog = setTimeout(() => {
  log('TIME LIMIT (10 min) reached: stopping');
  void finish(true);
}, LIMIT_MS);

// ---- workers ---------------------------------------------------------------
const executions = new Map(); // job id -> handler runs seen (from 'started')
const completedEvents = new Map();
let completedCount = 0;
const slots = [];

function startWorker(slot) {
  const child = fork(FIXTURE, [JSON.stringify({ url, prefix, queue: 'soak', worker: workerOptions, wait: true, lean: true })], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const state = { child, inFlight: new Set(), ready: false };
  children.add(child);
  child.on('message', (m) => {
    if (m.type === 'started') {
      executions.set(m.id, (executions.get(m.id) ?? 0) + 1);
      // Delivered again: whoever ran it before lost it (its late result was refused).
      for (const other of slots) if (other !== state) other?.inFlight.delete(m.id);
      state.inFlight.add(m.id);
    } else if (m.type === 'completed' || m.type === 'failed') {
      state.inFlight.delete(m.id);
      if (m.type === 'completed') {
        completedCount += 1;
        completedEvents.set(m.id, (completedEvents.get(m.id) ?? 0) + 1);
      }
    } else if (m.type === 'ready') {
      state.ready = true;
    }
  });
  child.once('exit', () => children.delete(child));
  slots[slot] = state;
  return state;
}

for (let i = 0; i < WORKERS; i++) startWorker(i);

// ---- producer --------------------------------------------------------------
const store = new RedisStore({ url }, { prefix, logger: quiet });
await store.connect();
const queue = new Queue('soak', { store });
const attempted = new Set();
let acknowledged = 0;
const acknowledgedIds = [];
let addRetries = 0;

async function produce() {
  for (let from = 0; from < TOTAL; from += BATCH) {
    const batch = [];
    for (let i = from; i < Math.min(TOTAL, from + BATCH); i++) {
      const id = `s${i}`;
      attempted.add(id);
      // Every completed job kept (the default keeps the newest 1,000): the count at the end reads them all.
      batch.push({ name: 'work', data: { mode: 'ok', ms: 2 }, opts: { jobId: id, removeOnComplete: false } });
    }
    // Repeat a failed batch with the same ids: an add that did land is not added twice.
    for (;;) {
      try {
        await queue.addBulk(batch);
        break;
      } catch {
        addRetries += 1;
        await sleep(100);
      }
    }
    acknowledged += batch.length;
    for (const job of batch) acknowledgedIds.push(job.opts.jobId);
    // Keep the backlog bounded so the run measures the system, not a 200k-deep queue.
    while (acknowledged - completedCount > 20_000) await sleep(50);
  }
}

// ---- faults ----------------------------------------------------------------
const faults = [];
const kinds = ['worker-kill', 'redis-restart', 'client-kill'];
let faultIndex = 0;
let producing = true;

async function admin() {
  const client = createClient({ url, socket: { reconnectStrategy: false, connectTimeout: 2000 } });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Waits until `count` more completions than at `base` were seen, returns ms since `since`. */
async function recovered(base, since, count = 200) {
  while (completedCount < base + count && Date.now() - since < 60_000) await sleep(10);
  return Date.now() - since;
}

async function fault() {
  const kind = kinds[faultIndex++ % kinds.length];
  const base = completedCount;
  const inFlightAll = slots.reduce((n, s) => n + s.inFlight.size, 0);
  const at = Date.now();
  let bound = 0;
  if (kind === 'worker-kill') {
    const slot = Math.floor(Math.random() * slots.length);
    const victim = slots[slot];
    bound = victim.inFlight.size;
    victim.child.kill('SIGKILL');
    await new Promise((r) => (victim.child.exitCode !== null || victim.child.signalCode !== null ? r() : victim.child.once('exit', r)));
    startWorker(slot);
  } else if (kind === 'redis-restart') {
    bound = inFlightAll;
    await server.kill();
    await server.restart();
  } else {
    bound = inFlightAll;
    const client = await admin();
    await client.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
    await client.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    client.destroy();
  }
  const recoveryMs = await recovered(base, at);
  faults.push({ kind, at: elapsed(), bound, recoveryMs });
  log(`fault ${faults.length}: ${kind}, in-flight bound ${bound}, recovered (200 more completions) in ${recoveryMs} ms`);
}

async function rotateFaults() {
  while (producing) {
    await sleep(FAULT_EVERY);
    if (!producing) break;
    await fault();
  }
}

// ---- run -------------------------------------------------------------------
log(`redis-server pid ${server.pid} on port ${server.port} (appendonly yes, appendfsync always); ${WORKERS} worker processes x concurrency ${CONCURRENCY}; ${TOTAL} jobs; a fault every ${FAULT_EVERY} ms`);
const progress = setInterval(() => log(`acknowledged ${acknowledged}, completed events ${completedCount}`), 10_000);
const faulting = rotateFaults();
await produce();
producing = false;
await faulting;
log('all jobs acknowledged; faults stopped; draining');

async function settled() {
  try {
    const c = await queue.getCounts();
    return c.waiting + c.delayed + c.active === 0;
  } catch {
    return false;
  }
}
const drainStart = Date.now();
while (!(await settled()) && Date.now() - startedAt < LIMIT_MS - 30_000) await sleep(200);
log(`drained in ${Date.now() - drainStart} ms`);
await finish(false);

async function finish(timedOut) {
  clearTimeout(watchdog);
  clearInterval(progress);
  const runMs = Date.now() - startedAt;
  let completedIds = [];
  let problems = ['verify() did not run'];
  try {
    completedIds = await store.listIds('soak', 'completed', 0, -1);
    await Promise.all(
      [...children].map(
        (child) =>
          new Promise((resolve) => {
            const timer = setTimeout(() => (child.kill('SIGKILL'), resolve()), 10_000);
            child.once('exit', () => (clearTimeout(timer), resolve()));
            if (child.connected) child.send({ type: 'close', timeout: 5000 });
          }),
      ),
    );
    problems = await queue.verify();
  } catch (err) {
    problems = [`final read failed: ${err?.name ?? "error"} ${err?.message ?? String(err)}`];
  }
  const completed = new Set(completedIds);
  const lost = acknowledgedIds.filter((id) => !completed.has(id));
  const unexpected = completedIds.filter((id) => !attempted.has(id));
  const duplicated = [...executions.values()].filter((n) => n > 1).length;
  const bound = faults.reduce((n, f) => n + f.bound, 0);
  const byKind = (kind) => faults.filter((f) => f.kind === kind).map((f) => f.recoveryMs);
  const summary = (list) => (list.length ? `n=${list.length} min ${Math.min(...list)} ms, max ${Math.max(...list)} ms, mean ${Math.round(list.reduce((a, b) => a + b, 0) / list.length)} ms` : 'none');
  const lines = [
    '',
    '==== soak result ====',
    `attempted     ${attempted.size}`,
    `acknowledged  ${acknowledgedIds.length}`,
    `completed     ${completed.size}`,
    `lost          ${lost.length}${lost.length ? ` (e.g. ${lost.slice(0, 5).join(', ')})` : ''}`,
    `unexpected    ${unexpected.length}${unexpected.length ? ` (e.g. ${unexpected.slice(0, 5).join(', ')})` : ''}`,
    `duplicated    ${duplicated} (jobs run more than once; in-flight bound summed over the faults: ${bound})`,
    `faults        ${faults.length}: ${kinds.map((k) => `${k} ${byKind(k).length}`).join(', ')}`,
    `bounds        ${faults.map((f) => `${f.kind}@${f.at}s:${f.bound}`).join(' ')}`,
    ...kinds.map((k) => `recovery      ${k.padEnd(14)} ${summary(byKind(k))}`),
    `add retries   ${addRetries} (batches of ${BATCH} repeated after a fault)`,
    `verify()      ${problems.length === 0 ? 'clean' : problems.slice(0, 5).join('; ')}`,
    `wall time     ${(runMs / 1000).toFixed(1)} s${timedOut ? ' (TIME LIMIT)' : ''}`,
    `throughput    ${Math.round((completed.size / runMs) * 1000)} jobs/s (completed / wall time, faults included)`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  await store.disconnect().catch(() => undefined);
  for (const child of children) child.kill('SIGKILL');
  await server.dispose();
  const ok = !timedOut && lost.length === 0 && unexpected.length === 0 && completed.size === acknowledgedIds.length && problems.length === 0;
  process.stdout.write(ok ? 'SOAK PASSED\n' : 'SOAK FAILED\n');
  process.exit(ok ? 0 : 1);
}
