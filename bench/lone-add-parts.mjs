// Where a lone add's Redis work goes: instructions redis-server executes
// (valgrind's callgrind) per add script call carrying one job, no worker, as
// an HTTP handler's add would run. The script is cut short (`do return 1 end`)
// at successive points, so each row's increase is the cost of one part; one
// row runs the same add as a Redis Function (FUNCTION LOAD once, then FCALL),
// where the include's ~80 local functions are defined at load time instead
// of on every call; the last rows add with an idle worker named for pushes
// (includes/push): the add also claims its job for that worker and
// publishes it, the path of the latency row: as the one-job push (the job
// written already started) and through the claim (the way a job goes when
// another waits ahead of it), cut part by part. A measure for the next step,
// not a test: CI runs nothing here. Needs valgrind and redis-cli (Debian:
// valgrind, redis-tools).
// Then the same calls timed after 5 ms of quiet (round trip and SLOWLOG).
// Usage: npm run bench:lone-add [-- --calls=100] [-- --timed-only]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { createClient } from 'redis';
import { BenchRedis } from '../dist-bench/bench/redis-server.js';
import { loadScript } from '../dist-bench/lib/store/script-loader.js';

const run = promisify(execFile);
const calls = Number(process.argv.find((a) => a.startsWith('--calls='))?.split('=')[1] ?? 100);
const dir = mkdtempSync(join(tmpdir(), 'spool-lone-add-'));
const text = loadScript('add').source;

/**
 * The add script returning at `marker` (the text of the line it stops before)
 * with `value` (a cut inside the push's claim returns from that function,
 * and the add goes on as if the claim or the push had ended there).
 */
function cutAt(marker, value = '1', source = text) {
  const at = source.indexOf(marker);
  if (at < 0) throw new Error(`add.lua no longer has "${marker.trim()}": update the cut points`);
  return `${source.slice(0, at)}\ndo return ${value} end\n${source.slice(at)}`;
}

/** The add with the one-job push turned off: its job goes through the claim, as when a job waits ahead of it. */
const DIRECT = 'directOk = n == 1 and';
if (!text.includes(DIRECT)) throw new Error('add.lua no longer decides the one-job push as expected: update the bench');
const viaClaim = text.replace(DIRECT, 'directOk = false and');

/**
 * The add script as a Redis Function library: the includes at the library's
 * top level (run once by FUNCTION LOAD), the script's own body per FCALL.
 * KEYS and ARGV become upvalues set on each call. Library load time has no
 * `string` global, so the two constants computed with string.byte are spelled out.
 */
function asFunction() {
  const head = 'local spool_notes = {}\nlocal spool_reply = (function()\n';
  if (!text.startsWith(head)) throw new Error('the script loader no longer wraps scripts as expected');
  const content = text.slice(head.length, text.lastIndexOf('\nend)()'));
  const bodyAt = content.indexOf('\nlocal Q = spool_queue()');
  const constants = [
    ['local SPOOL_SPENT_BYTE = string.byte(SPOOL_SPENT)', 'local SPOOL_SPENT_BYTE = 33'],
    ['local SPOOL_PLAIN_BYTE, SPOOL_PLAIN_RC_BYTE = string.byte(SPOOL_PLAIN_LEASE), string.byte(SPOOL_PLAIN_RC_LEASE)', 'local SPOOL_PLAIN_BYTE, SPOOL_PLAIN_RC_BYTE = 46, 43'],
  ];
  let top = content.slice(0, bodyAt);
  for (const [from, to] of constants) top = top.replace(from, to);
  return `#!lua name=spool_lone_add
local KEYS, ARGV
local spool_notes = {}
${top}
local function add_body()
${content.slice(bodyAt)}
end
redis.register_function('spool_lone_add', function(keys, args)
  KEYS, ARGV = keys, args
  spool_notes = {}
  local reply = add_body()
  if ARGV[1] ~= '' or (type(reply) == 'table' and reply.err) then
    return reply
  end
  return {spool_notes, reply}
end)
`;
}

/**
 * What a leased, evented start cannot do without, as one script with no Lua
 * logic around it: the clock, the id check, the gates and counters, taking
 * the worker's name, the lease counter, the job written started, the lease's
 * expiry, the added and active events, the message. The floor of the
 * one-job push under Spool's guarantees (same keys and arguments).
 */
const bareStart = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local id = ARGV[5]
local jobKey = KEYS[10] .. id
if redis.call('EXISTS', jobKey) == 1 then return 0 end
local m = redis.call('HMGET', KEYS[7], 'mw', 'paused', 'rl', 'lu', 'ev')
local seq = redis.call('HINCRBY', KEYS[7], 'seq', 1)
local named = redis.call('GET', KEYS[9] .. ':push')
redis.call('DEL', KEYS[9] .. ':push')
local token = 'w1:' .. redis.call('HINCRBY', KEYS[7], 'lc', 1) .. '.'
redis.call('HSET', jobKey, 'name', ARGV[6], 'data', ARGV[7], 'createdAt', now, 'state', 'active', 'ws', 4294967296 + seq,
  'attempt', '1', 'token', token, 'startedAt', now)
redis.call('ZADD', KEYS[3], now + 30000, id)
local ev = string.sub(KEYS[7], 1, -5) .. 'events'
redis.call('XADD', ev, 'MAXLEN', '~', 10000, '*', 'event', 'added', 'jobId', id, 'name', ARGV[6], 'state', 'waiting')
redis.call('XADD', ev, 'MAXLEN', '~', 10000, '*', 'event', 'active', 'jobId', id, 'attempt', '1')
redis.call('RPUSH', KEYS[9] .. ':pushed:w1', cjson.encode({ { 'name', ARGV[6], 'data', ARGV[7], 'id', id, 'token', token } }))
redis.call('PEXPIRE', KEYS[9] .. ':pushed:w1', 30000)
return { now, 0 }
`;

const variants = [
  ['EVALSHA of `return 1` (same keys and arguments)', 'return 1'],
  ["+ defining the includes' local functions", cutAt('\nlocal Q = spool_queue()')],
  ['+ setup (queue keys, TIME, n)', cutAt('\nlocal info = {}')],
  ['+ pass 1 (decode, exists, backpressure)', cutAt('\n-- Sequence numbers for the waiting jobs')],
  ['+ pass 2 (the job hash)', cutAt('\n-- Indexes and counters, once per call.')],
  ['+ indexes and counters', cutAt("\nspool_events(Q, 'added'")],
  ['+ the added event', cutAt('\n-- An idle worker that listens for pushes')],
  ['whole add (EVALSHA, as today)', text],
  ['whole add as a Redis Function (FCALL)', null],
  ['one-job push: pass 1 and setup, as above, then', cutAt('\n-- Sequence numbers for the waiting jobs'), true],
  ['  + pass 2 (gates, the name, the job hash written started)', cutAt('\n-- Indexes and counters, once per call.'), true],
  ['  + indexes and counters', cutAt("\nspool_events(Q, 'added'"), true],
  ['  + the added event', cutAt('\n-- An idle worker that listens for pushes'), true],
  ['whole add pushing its job to a named idle worker (the one-job push)', text, true],
  ['the same reads and writes as one bare script (no logic around them)', bareStart, true],
  ["through the claim: + taking the worker's name", cutAt('  local jobs = spool_claim(Q, math.min(n, tonumber(slots))', '0', viaClaim), true],
  ["  + the claim's gate (meta, rate window)", cutAt('  if count > allowance then', 'out, 0', viaClaim), true],
  ["  + the claim's per-call state", cutAt('  local waitMs = 0\n  local budget = count + 100', 'out, 0', viaClaim), true],
  ['  + popping and starting the job', cutAt('  spool_unpop(Q, C)', 'out, 0', viaClaim), true],
  ['  + the active index and event', cutAt('  spool_claim_put_back(Q, J.skipped)', 'out, 0', viaClaim), true],
  ['whole add pushing its job through the claim (EVALSHA)', viaClaim, true],
];
const keys = ['wait', 'delayed', 'active', 'completed', 'failed', 'cancelled', 'meta', 'hint', 'idle', 'job:', 'log:',
  'ring', 'groups', 'glimited', 'group:', 'paused-names', 'parked:'].map((k) => `{bench:lone}:${k}`);

/** `push`: an idle worker is named before each add (the latency case), so the add also claims the job for it. */
async function measure(script, push = false) {
  const file = join(dir, `callgrind-${Date.now()}.out`);
  const redis = await BenchRedis.start(['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${file}`]);
  const port = new URL(redis.url).port;
  const cli = (...args) => run('redis-cli', ['-p', port, ...args], { maxBuffer: 1 << 26 });
  try {
    let command, target;
    if (script === null) {
      const lib = join(dir, 'library.lua');
      writeFileSync(lib, asFunction());
      const loaded = await run('sh', ['-c', `redis-cli -p ${port} -x FUNCTION LOAD REPLACE < ${lib}`]);
      if (loaded.stdout.trim() !== 'spool_lone_add') throw new Error(`FUNCTION LOAD: ${loaded.stdout}${loaded.stderr}`);
      [command, target] = ['FCALL', 'spool_lone_add'];
    } else {
      [command, target] = ['EVALSHA', (await cli('SCRIPT', 'LOAD', script)).stdout.trim()];
    }
    let id = 0;
    const call = async () => {
      // The claim's active index and events emptied after each add, as one job at a time leaves them (outside evalShaCommand's count).
      if (push) await cli('SET', '{bench:lone}:idle:push', 'w1|30000|1', 'PX', '30000');
      const { stdout } = await cli(command, target, '17', ...keys, '{bench:lone}:sched', '{bench:lone}:owls', 'lone', '1', `job${id++}`, 'noop', '{"i":1,"g":0}', '{}', '');
      if (/^ERR/.test(stdout)) throw new Error(stdout);
      if (push) await cli('DEL', '{bench:lone}:active', '{bench:lone}:events');
    };
    for (let i = 0; i < 20; i++) await call(); // the queue's first add and the allocator's warm-up out of the count
    await run('callgrind_control', ['-i', 'on', String(redis.pid)]);
    for (let i = 0; i < calls; i++) await call();
    await run('callgrind_control', ['-i', 'off', String(redis.pid)]);
  } finally {
    await redis.stop();
  }
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', file], { maxBuffer: 1 << 26 });
  const line = /([\d,]+) \([\s\d.]+%\)\s+\?\?\?:(evalShaCommand|fcallCommand) \[/.exec(stdout);
  return Number(line[1].replace(/,/g, '')) / calls;
}

/**
 * The same calls timed, as the latency row meets them: each after 5 ms of
 * quiet (the worker's name set before the pause), the variants interleaved
 * so they share the machine's drift; p50 of the round trip from a node-redis
 * client and of the server's own time (SLOWLOG, threshold 0).
 */
async function timed(samples = 300) {
  const redis = await BenchRedis.start();
  const client = createClient({ url: redis.url });
  await client.connect();
  const rows = [
    ['PING', null],
    ['the bare start (its reads and writes, no logic)', bareStart],
    ['the add, one-job push', text],
    ['the add, push through the claim', viaClaim],
  ];
  const shas = await Promise.all(rows.map(([, script]) => (script ? client.scriptLoad(script) : null)));
  const trips = rows.map(() => []);
  const server = rows.map(() => []);
  await client.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '0']);
  let id = 0;
  try {
    for (let i = 0; i < samples + 20; i++) {
      for (let r = 0; r < rows.length; r++) {
        await client.sendCommand(['SET', '{bench:lone}:idle:push', 'w1|30000|1', 'PX', '30000']);
        await client.sendCommand(['DEL', '{bench:lone}:active', '{bench:lone}:events']);
        await client.sendCommand(['SLOWLOG', 'RESET']);
        await new Promise((resolve) => setTimeout(resolve, 5));
        const t0 = performance.now();
        if (shas[r] === null) await client.sendCommand(['PING']);
        else await client.sendCommand(['EVALSHA', shas[r], '17', ...keys, '{bench:lone}:sched', '{bench:lone}:owls', 'lone', '1', `job${id++}`, 'noop', '{"i":1,"g":0}', '{}', '']);
        const trip = performance.now() - t0;
        const log = await client.sendCommand(['SLOWLOG', 'GET', '10']);
        const entry = log.find((e) => String(e[3][0]).toUpperCase() === (shas[r] === null ? 'PING' : 'EVALSHA'));
        if (i >= 20) {
          trips[r].push(trip);
          server[r].push(Number(entry?.[2] ?? NaN));
        }
      }
    }
  } finally {
    await client.quit();
    await redis.stop();
  }
  const p50 = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)];
  console.log(`the same calls timed, each after 5 ms of quiet, ${samples} samples, p50 (round trip from node-redis; server time, SLOWLOG):`);
  rows.forEach(([label], r) => console.log(`  ${label.padEnd(58)} ${p50(trips[r]).toFixed(3)} ms  ${String(p50(server[r])).padStart(4)} us`));
}

console.log(`redis-server instructions per add call carrying one job (callgrind Ir, ${calls} calls each); node ${process.version}`);
try {
  if (process.argv.includes('--timed-only')) {
    await timed();
    process.exit(0);
  }
  let previous = 0;
  for (const [label, script, push] of variants) {
    const ir = await measure(script, push);
    const step = previous && script !== null && label.trimStart().startsWith('+') ? `  (+${Math.round(ir - previous).toLocaleString('en-US')})` : '';
    console.log(`  ${label.padEnd(58)} ${Math.round(ir).toLocaleString('en-US').padStart(9)}${step}`);
    previous = ir;
  }
  await timed();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
