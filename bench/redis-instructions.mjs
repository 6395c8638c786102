// Redis work per processed job, counted rather than timed: CPU instructions
// redis-server executes (valgrind's callgrind, Ir) while each library
// processes N pre-filled no-op jobs at concurrency 100, kept and removed, as
// the bench's c100 rows, while it adds N jobs one by one, 100 in flight, and
// while it adds them one at a time (nothing to coalesce). Instruction counts do not move with the machine's
// load or clock, so a change to a script shows as a figure that repeats
// (runs agree within about 1%), where the timed rows need several runs to
// tell a 5% step from noise. Each library and retention gets its own
// redis-server under valgrind (about 50x slower), warmed up (scripts loaded)
// before counting starts. Also printed: the Redis commands with the largest
// inclusive share, so the instructions inside scripts are split by command.
// Needs valgrind (sudo apt-get install -y valgrind). Not a test: CI runs nothing here.
// Usage: npm run bench:instructions [-- --jobs=3000 --only=Spool --top=12]
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { BenchRedis } from '../dist-bench/bench/redis-server.js';
import { SpoolContender } from '../dist-bench/bench/contenders/spool.js';
import { BullContender } from '../dist-bench/bench/contenders/bullmq.js';
import { BeeContender } from '../dist-bench/bench/contenders/bee-queue.js';

const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const jobs = Number(arg('jobs', 3000));
const top = Number(arg('top', 10));
const only = arg('only', '');
const LIBRARIES = [SpoolContender, BullContender, BeeContender].filter((C) => !only || new C().name === only);
const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'spool-bench-callgrind-'));

/** Switches callgrind's instrumentation of the process on or off. */
async function instrument(pid, on) {
  await run('callgrind_control', ['-i', on ? 'on' : 'off', String(pid)]);
}

/** Total Ir and the *Command functions' inclusive Ir of one callgrind output file. */
async function totals(file) {
  const { stdout } = await run('callgrind_annotate', ['--inclusive=yes', file], { maxBuffer: 1 << 26 });
  const total = Number(/([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS/.exec(stdout)[1].replace(/,/g, ''));
  const commands = new Map();
  for (const m of stdout.matchAll(/^\s*([\d,]+) \([\s\d.]+%\)\s+\?\?\?:(\w+Command) \[/gm)) {
    // The dispatcher and the helpers a command goes through would only repeat its line.
    if (/^(process|evalGeneric)Command$|Generic|MinMax/.test(m[2])) continue;
    if (!commands.has(m[2])) commands.set(m[2], Number(m[1].replace(/,/g, '')));
  }
  return { total, commands };
}

async function measure(Contender, retention) {
  const file = join(dir, `${new Contender().name}-${retention}-${Date.now()}.out`);
  const redis = await BenchRedis.start(['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${file}`]);
  const lib = new Contender();
  try {
    await lib.open(redis.url);
    // Scripts loaded and every path taken once before counting.
    await lib.fill('warm-up', 500, retention);
    await lib.process('warm-up', 500, 100, retention);
    if (retention === 'added' || retention === 'alone') {
      const width = retention === 'added' ? 100 : 1;
      await lib.addSingle('warm-up', 500, width);
      await instrument(redis.pid, true);
      await lib.addSingle('q', jobs, width);
    } else {
      await lib.fill('q', jobs, retention);
      await instrument(redis.pid, true);
      await lib.process('q', jobs, 100, retention);
    }
    await instrument(redis.pid, false);
  } finally {
    await lib.close();
    await redis.stop(); // SIGTERM: redis-server exits and callgrind writes the file
  }
  return totals(file);
}

console.log(`redis-server instructions per job (callgrind Ir), ${jobs} no-op jobs; node ${process.version}`);
try {
  for (const retention of ['kept', 'removed', 'added', 'alone']) {
    for (const Contender of LIBRARIES) {
      const name = new Contender().name;
      const { total, commands } = await measure(Contender, retention);
      const what = { added: 'added one by one, 100 in flight', alone: 'added one at a time (each add awaited, as a request handler adds)' }[retention] ?? `processed, ${retention}`;
      console.log(`\n${name}, ${what}: ${Math.round(total / jobs).toLocaleString('en-US')} instructions per job`);
      const rows = [...commands].sort((a, b) => b[1] - a[1]).slice(0, top);
      for (const [command, ir] of rows) {
        console.log(`  ${command.padEnd(28)} ${Math.round(ir / jobs).toLocaleString('en-US').padStart(9)} per job  ${((100 * ir) / total).toFixed(1).padStart(5)}%`);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
