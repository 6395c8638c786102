/**
 * Where the microseconds go per job: one c100 process run per contender, with
 *   - node: a V8 CPU profile of the run only (inspector Profiler, the same
 *     .cpuprofile as node --cpu-prof, without warm-up and fill), written to
 *     bench-output/, top self-time functions printed; node CPU per job;
 *   - Redis: INFO commandstats per command (usec per call, calls per job) and
 *     redis-server CPU per job (INFO cpu) of the same run; then a second run
 *     with SLOWLOG at threshold 0 splits EVALSHA time by script (sha ->
 *     library:script).
 *   npm run bench -- profile [--jobs=N] [--retention=kept|removed] [--top=N] [--concurrency=N (default 100)]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import type { Contender, Retention } from './contender.js';
import { BeeContender } from './contenders/bee-queue.js';
import { BullContender } from './contenders/bullmq.js';
import { SpoolContender } from './contenders/spool.js';
import { topSelfTime, type CpuProfile } from './cpuprofile.js';
import { RedisProbe } from './measure.js';
import { BenchRedis } from './redis-server.js';
import { scriptNames } from './script-names.js';
import { fmt, renderTable } from './table.js';

const OUT = 'bench-output';

interface ProfileArgs {
  readonly jobs: number;
  readonly retention: Retention;
  readonly top: number;
  readonly concurrency: number;
}

function parse(argv: readonly string[]): ProfileArgs {
  let jobs = 20_000;
  let retention: Retention = 'kept';
  let top = 15;
  let concurrency = 100;
  for (const arg of argv) {
    const [key, value] = arg.split('=');
    if (key === '--jobs') jobs = Number(value);
    else if (key === '--top') top = Number(value);
    else if (key === '--concurrency') concurrency = Number(value);
    else if (key === '--retention' && (value === 'kept' || value === 'removed')) retention = value;
    else throw new Error(`unknown profile argument "${arg}": options --jobs=N, --retention=kept|removed, --top=N`);
  }
  if (!Number.isInteger(jobs) || jobs < 100) throw new Error('--jobs must be an integer >= 100');
  return { jobs, retention, top, concurrency };
}

/** redis-server's own CPU time so far, seconds (INFO cpu: user + system of the main process). */
async function redisCpu(probe: RedisProbe): Promise<number> {
  const info = String(await probe.send(['INFO', 'cpu']));
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? NaN);
  return field('used_cpu_user') + field('used_cpu_sys');
}

type SlowlogEntry = [number, number, number, string[], string, ...unknown[]];

/** EVALSHA calls of the run by script (slowlog entries; a script's inner commands, peer "?:0", left out). */
function scriptsOf(entries: readonly SlowlogEntry[], names: ReadonlyMap<string, string>): Map<string, { calls: number; usec: number }> {
  const out = new Map<string, { calls: number; usec: number }>();
  for (const [, , usec, args, peer] of entries) {
    if (peer === '?:0' || String(args[0]).toUpperCase() !== 'EVALSHA') continue;
    const key = names.get(String(args[1])) ?? String(args[1]).slice(0, 12);
    const entry = out.get(key) ?? { calls: 0, usec: 0 };
    entry.calls++;
    entry.usec += usec;
    out.set(key, entry);
  }
  return out;
}

/** INFO commandstats: calls and usec per command since the last reset. */
async function commandStats(probe: RedisProbe): Promise<Map<string, { calls: number; usec: number }>> {
  const info = String(await probe.send(['INFO', 'commandstats']));
  const out = new Map<string, { calls: number; usec: number }>();
  for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
    if (['info', 'config|set', 'config|resetstat', 'slowlog|reset', 'slowlog|get'].includes(match[1]!)) continue;
    out.set(match[1]!, { calls: Number(match[2]), usec: Number(match[3]) });
  }
  return out;
}

async function profileOne(c: Contender, probe: RedisProbe, session: Session, args: ProfileArgs, names: ReadonlyMap<string, string>): Promise<void> {
  const n = args.jobs;
  // Run A: CPU profile, INFO cpu and commandstats, nothing else switched on in Redis.
  await probe.reset();
  await c.fill('profile-a', n, args.retention);
  await probe.send(['CONFIG', 'RESETSTAT']);
  const redis0 = await redisCpu(probe);
  await session.post('Profiler.start');
  const node0 = process.cpuUsage();
  const { ms } = await c.process('profile-a', n, args.concurrency, args.retention);
  const node = process.cpuUsage(node0);
  const { profile } = await session.post('Profiler.stop');
  const redisUs = ((await redisCpu(probe)) - redis0) * 1e6;
  const stats = await commandStats(probe);
  const file = `${OUT}/${c.name}-c${args.concurrency}-${args.retention}.cpuprofile`;
  writeFileSync(file, JSON.stringify(profile));
  // Run B: every command logged (SLOWLOG threshold 0) to split EVALSHA time by script.
  await probe.reset();
  await c.fill('profile-b', n, args.retention);
  await probe.send(['CONFIG', 'SET', 'slowlog-log-slower-than', '0']);
  await probe.send(['CONFIG', 'SET', 'slowlog-max-len', '2000000']);
  await probe.send(['SLOWLOG', 'RESET']);
  await c.process('profile-b', n, args.concurrency, args.retention);
  const entries = (await probe.send(['SLOWLOG', 'GET', '-1'])) as SlowlogEntry[];
  await probe.send(['CONFIG', 'SET', 'slowlog-log-slower-than', '10000']);
  await probe.send(['SLOWLOG', 'RESET']);

  const nodeUs = node.user + node.system;
  const commands = [...stats.entries()].sort((a, b) => b[1].usec - a[1].usec);
  const evalsha = stats.get('evalsha');
  const scripts = [...scriptsOf(entries, names).entries()].sort((a, b) => b[1].usec - a[1].usec);
  const loggedScriptUs = scripts.reduce((sum, [, g]) => sum + g.usec, 0);
  console.log(`\n## ${c.name}: process ${fmt(n)} jobs, c${args.concurrency}, ${args.retention}: ${fmt((n / ms) * 1000)} jobs/s (CPU profiler on)`);
  console.log(`per job: wall ${fmt((ms * 1000) / n, 1)} us; node CPU ${fmt(nodeUs / n, 1)} us; redis-server CPU ${fmt(redisUs / n, 1)} us (INFO cpu, network and parsing included)`);
  console.log(`profile: ${file}`);
  console.log(
    renderTable(
      ['Redis command (commandstats; inside scripts too)', 'calls/job', 'usec/call', 'usec/job'],
      commands.map(([cmd, g]) => [cmd, fmt(g.calls / n, 2), fmt(g.usec / g.calls, 2), fmt(g.usec / n, 2)]),
    ),
  );
  if (evalsha && scripts.length) {
    // Logging every inner command inflates the slowlog's script times: only their split is used,
    // scaled to run A's EVALSHA total.
    const scale = evalsha.usec / loggedScriptUs;
    console.log(
      renderTable(
        ['script (EVALSHA, split by slowlog)', 'calls/job', 'usec/call', 'usec/job', 'share'],
        scripts.map(([name, g]) => [name, fmt(g.calls / n, 3), fmt((g.usec * scale) / g.calls, 1), fmt((g.usec * scale) / n, 1), `${fmt((g.usec / loggedScriptUs) * 100, 1)}%`]),
      ),
    );
  }
  const top = topSelfTime(profile as CpuProfile, args.top);
  console.log(renderTable(['node: function (self time)', 'ms', 'share'], top.map((t) => [t.fn, fmt(t.ms, 1), `${fmt(t.share * 100, 1)}%`])));
}

export async function runProfile(argv: readonly string[]): Promise<void> {
  const args = parse(argv);
  mkdirSync(OUT, { recursive: true });
  const names = scriptNames();
  const redis = await BenchRedis.start();
  const probe = new RedisProbe(redis.url);
  await probe.open();
  const contenders: Contender[] = [new SpoolContender(), new BullContender(), new BeeContender()];
  const session = new Session();
  session.connect();
  try {
    for (const c of contenders) await c.open(redis.url);
    for (const c of contenders) await c.warmUp();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    console.log(`profile: c${args.concurrency}, ${fmt(args.jobs)} jobs, completed jobs ${args.retention}; node ${process.version}; redis-server port ${redis.port}`);
    for (const c of contenders) await profileOne(c, probe, session, args, names);
  } finally {
    session.disconnect();
    for (const c of contenders) await c.close();
    await probe.close();
    await redis.stop();
  }
}
