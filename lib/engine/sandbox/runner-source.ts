/**
 * The program a sandbox runs (a worker thread, or a child process started
 * with `node -e`): plain JavaScript, with no import of Spool, so it runs the
 * same whether Spool was loaded as ESM, CJS or TypeScript sources. It loads
 * the handler module once (dynamic import: ESM or CJS), runs one job at a
 * time for the parent, and turns the job's writes into messages the parent
 * performs under its lease (lib/engine/sandbox/protocol.ts):
 *
 *   parent -> sandbox   { t: 'run', run, url, job }   { t: 'abort', run, reason }   { t: 'reply', call, ok, value | error }
 *   sandbox -> parent   { t: 'call', run, call, kind: 'progress' | 'log' | 'data', value }
 *                       { t: 'done', run, value }     { t: 'failed', run, error }
 */
export const RUNNER_SOURCE = String.raw`'use strict';
const threads = require('node:worker_threads');
const send = threads.isMainThread ? (m) => process.send(m) : (m) => threads.parentPort.postMessage(m);
const listen = threads.isMainThread ? (f) => process.on('message', f) : (f) => threads.parentPort.on('message', f);
let loaded;
let nextCall = 0;
const calls = new Map();
const aborts = new Map();

function errorOf(e) {
  if (e === null || typeof e !== 'object' || typeof e.message !== 'string') {
    let text;
    try { text = typeof e === 'string' ? e : JSON.stringify(e) ?? String(e); } catch { text = Object.prototype.toString.call(e); }
    return { thrown: text };
  }
  const out = { name: String(e.name || 'Error'), message: e.message, stack: typeof e.stack === 'string' ? e.stack : '' };
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = e.code;
  if (typeof e.reason === 'string') out.reason = e.reason;
  if (typeof e.retryAfter === 'number') out.retryAfter = e.retryAfter;
  if (typeof e.delay === 'number') out.delay = e.delay;
  if (typeof e.jobName === 'string') out.jobName = e.jobName;
  return out;
}

function handlerFor(mod, name) {
  if (name !== 'default' && typeof mod[name] === 'function') return mod[name];
  const d = mod.default;
  if (typeof d === 'function') return d;
  if (d !== null && typeof d === 'object' && typeof d[name] === 'function') return d[name];
  return undefined;
}

function call(run, kind, value) {
  const id = ++nextCall;
  return new Promise((resolve, reject) => {
    calls.set(id, { resolve, reject });
    send({ t: 'call', run, call: id, kind, value });
  });
}

function finish(message) {
  try {
    send(message);
  } catch (e) {
    send({ t: 'failed', run: message.run, error: errorOf(new Error('the result cannot be sent to the worker: ' + e.message)) });
  }
}

async function run(m) {
  const controller = new AbortController();
  aborts.set(m.run, controller);
  const job = Object.assign({}, m.job, {
    signal: controller.signal,
    updateProgress: (value) => call(m.run, 'progress', value),
    log: (line) => call(m.run, 'log', line),
    updateData: async (data) => { job.data = await call(m.run, 'data', data); },
  });
  try {
    loaded = loaded || import(m.url);
    const handler = handlerFor(await loaded, job.name);
    if (!handler) {
      const error = { name: 'NoHandlerError', message: 'the module exports no handler for job name "' + job.name + '"', stack: '', jobName: job.name };
      return send({ t: 'failed', run: m.run, error });
    }
    const value = await handler(job);
    finish({ t: 'done', run: m.run, value });
  } catch (e) {
    send({ t: 'failed', run: m.run, error: errorOf(e) });
  } finally {
    aborts.delete(m.run);
  }
}

listen((m) => {
  if (m.t === 'run') return void run(m);
  if (m.t === 'abort') {
    const reason = new Error(m.reason.message);
    reason.name = m.reason.name;
    return aborts.get(m.run)?.abort(reason);
  }
  if (m.t === 'reply') {
    const pending = calls.get(m.call);
    if (!pending) return;
    calls.delete(m.call);
    if (m.ok) return pending.resolve(m.value);
    const error = new Error(m.error.message);
    error.name = m.error.name;
    pending.reject(error);
  }
});
`;
