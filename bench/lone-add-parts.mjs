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
// Usage: npm run bench:lone-add [-- --calls=100]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
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
  ['whole add pushing its job to a named idle worker (the one-job push)', text, true],
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

console.log(`redis-server instructions per add call carrying one job (callgrind Ir, ${calls} calls each); node ${process.version}`);
try {
  let previous = 0;
  for (const [label, script, push] of variants) {
    const ir = await measure(script, push);
    const step = previous && script !== null && label.trimStart().startsWith('+') ? `  (+${Math.round(ir - previous).toLocaleString('en-US')})` : '';
    console.log(`  ${label.padEnd(58)} ${Math.round(ir).toLocaleString('en-US').padStart(9)}${step}`);
    previous = ir;
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
