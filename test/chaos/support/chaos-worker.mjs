// A Spool worker in its own process for the chaos suite, so tests can kill it
// with real signals. Runs the compiled engine entry (dist/esm/engine.mjs, built by global-setup).
// Config (JSON argument): { url | cluster (root node URLs), prefix, queue, shards, worker, wait, effectsFile,
// lean (smaller IPC messages, for the soak) }.
// Each job's data says how its handler behaves ({ mode, ms, ... }, see
// `behave` below); job names other than "work" have no handler.
// IPC to the parent: ready, started, completed, failed, error, late, and
// { type: 'closed' } after { type: 'close' }.
import { appendFileSync, existsSync } from 'node:fs';
import { NoHandlerError, RedisStore, Worker } from '../../../dist/esm/engine.mjs';

const config = JSON.parse(process.argv[2] ?? '{}');
const send = (message) => {
  try {
    process.send?.(message);
  } catch {
    // The parent is gone: nothing to tell.
  }
};
const logger = {
  log: () => undefined,
  warn: () => undefined,
  error: (m, e) => {
    if (config.verbose) process.stderr.write(`[chaos worker ${process.pid}] ${m} ${e?.message ?? ''}\n`);
  },
};

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Blocks the event loop for `ms`, or until the file `untilFile` exists (at most `ms`). */
function blockEventLoop(ms, untilFile) {
  const until = Date.now() + ms;
  let checked = 0;
  while (Date.now() < until) {
    if (untilFile && Date.now() - checked >= 50) {
      if (existsSync(untilFile)) return;
      checked = Date.now();
    }
  }
}

/** What the handler does, by job.data.mode. */
async function behave(job) {
  const data = job.data ?? {};
  switch (data.mode ?? 'ok') {
    case 'ok':
      if (data.ms) await sleep(data.ms);
      return { pid: process.pid, value: data.value ?? null };
    case 'crash':
      // A poison job: takes its process down every time.
      process.kill(process.pid, 'SIGKILL');
      return sleep(60_000);
    case 'crash-once':
      if (job.stalled === 0) process.kill(process.pid, 'SIGKILL');
      return { pid: process.pid };
    case 'block': {
      // Only the first delivery hangs; the worker that takes the job over finishes it.
      if (job.stalled > 0) return { pid: process.pid };
      blockEventLoop(data.ms, data.untilFile);
      // Give the ownership-lost message and the lease renewal a moment to be heard.
      const deadline = Date.now() + (data.listenMs ?? 5000);
      while (!job.signal.aborted && Date.now() < deadline) await sleep(20);
      send({ type: 'late', id: job.id, aborted: job.signal.aborted, reason: job.signal.reason?.name ?? null, message: job.signal.reason?.message ?? null });
      if (job.signal.aborted) throw job.signal.reason;
      return { pid: process.pid };
    }
    case 'effect': {
      // The side effect is a line in a file (synchronous, so it survives the kill that follows).
      await job.once('charge', () => {
        appendFileSync(config.effectsFile, `${job.id} ${process.pid}\n`);
        return { charged: true };
      });
      if (data.crashAfterEffect && job.stalled === 0) process.kill(process.pid, 'SIGKILL');
      return { pid: process.pid };
    }
    case 'throw-string':
      throw 'plain string';
    case 'throw-object':
      throw { code: 42, why: 'an object' };
    case 'throw-null':
      throw null;
    case 'never':
      return new Promise(() => undefined);
    case 'undefined':
      return undefined;
    case 'circular': {
      const value = { a: 1 };
      value.self = value;
      return value;
    }
    case 'bigint':
      return { big: 10n };
    default:
      throw new Error(`unknown mode ${data.mode}`);
  }
}

const store = config.cluster
  ? new RedisStore({ cluster: { rootNodes: config.cluster.map((url) => ({ url })) }, prefix: config.prefix, logger })
  : new RedisStore({ url: config.url }, { prefix: config.prefix, logger });
send({ type: 'connecting' });
await store.connect({ wait: config.wait ?? false });
const worker = new Worker(
  config.queue,
  async (job) => {
    send(config.lean ? { type: 'started', id: job.id } : { type: 'started', id: job.id, attempt: job.attempt, stalled: job.stalled });
    if (job.name !== 'work') throw new NoHandlerError(job.name, config.queue);
    return behave(job);
  },
  { store, logger, ...config.worker, ...(config.shards && { shards: config.shards }), autorun: false },
);
worker.on('completed', (job, result) => send(config.lean ? { type: 'completed', id: job.id } : { type: 'completed', id: job.id, result: result ?? null }));
worker.on('failed', (job, err, kind) => send({ type: 'failed', id: job.id, name: err.name, message: err.message, kind }));
worker.on('error', (err) => send({ type: 'error', name: err.name, message: err.message }));
await worker.run();
send({ type: 'ready' });

process.on('message', async (message) => {
  if (message?.type !== 'close') return;
  await worker.close({ timeout: message.timeout ?? 5000 });
  await store.disconnect();
  send({ type: 'closed' });
  process.exit(0);
});
