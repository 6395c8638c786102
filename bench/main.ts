/**
 * Spool vs BullMQ, same process, same private redis-server, one run.
 *   npm run bench [-- rows... --repeat=N --jobs=N]
 * rows: add-single add-bulk c1 c10 c100 latency groups events (default: all).
 * Throughput is the best of the repeats; latency percentiles pool every sample.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Contender } from './contender.js';
import { BullContender } from './contenders/bullmq.js';
import { SpoolContender } from './contenders/spool.js';
import { percentile, RedisProbe } from './measure.js';
import { BenchRedis } from './redis-server.js';
import { fmt, renderTable } from './table.js';

const ROWS = ['add-single', 'add-bulk', 'c1', 'c10', 'c100', 'latency', 'groups', 'events'] as const;
type Row = (typeof ROWS)[number];

interface Args {
  readonly rows: readonly Row[];
  readonly repeat: number;
  readonly jobs: number;
}

function parseArgs(argv: readonly string[]): Args {
  let repeat = 1;
  let jobs = 20_000;
  const rows: Row[] = [];
  for (const arg of argv) {
    const [key, value] = arg.split('=');
    if (key === '--repeat') repeat = Number(value);
    else if (key === '--jobs') jobs = Number(value);
    else if ((ROWS as readonly string[]).includes(arg)) rows.push(arg as Row);
    else throw new Error(`unknown argument "${arg}": rows are ${ROWS.join(', ')}; options --repeat=N, --jobs=N`);
  }
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error('--repeat must be a positive integer');
  if (!Number.isInteger(jobs) || jobs < 100) throw new Error('--jobs must be an integer >= 100');
  return { rows: rows.length ? rows : [...ROWS], repeat, jobs };
}

/** Best throughput and its command count, per contender. */
interface Throughput {
  perSec: number;
  cmdsPerJob: number;
}

const GROUPS = 100;
const GROUP_CONCURRENCY = 50;
const LATENCY_SAMPLES = 300;

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const redis = await BenchRedis.start();
  const probe = new RedisProbe(redis.url);
  await probe.open();
  const spool = new SpoolContender();
  const bull = new BullContender();
  await spool.open(redis.url);
  await bull.open(redis.url);
  // Scripts loaded once up front (FLUSHALL between rows keeps them): no row pays for NOSCRIPT fallbacks.
  await spool.warmUp();
  await bull.warmUp();
  const cpu = cpus();
  console.log(`redis-server on port ${redis.port}; node ${process.version}; ${cpu.length} cores (${cpu[0]?.model ?? '?'}); jobs=${args.jobs} repeat=${args.repeat}`);

  const best = new Map<string, Throughput>();
  const latency = new Map<string, number[]>();
  let groupSpread: { min: number; max: number; ms: number } | undefined;
  const keep = (key: string, t: Throughput) => {
    const prev = best.get(key);
    if (!prev || t.perSec > prev.perSec) best.set(key, t);
  };
  const n = args.jobs;

  try {
    for (let r = 0; r < args.repeat; r++) {
      // Alternate who goes first, so warm-up and drift do not favour one side.
      const order: Contender[] = r % 2 === 0 ? [spool, bull] : [bull, spool];
      for (const row of args.rows) {
        for (const c of order) {
          const q = `${row}-${r}`;
          await probe.reset();
          const timed = async (jobs: number, run: () => Promise<unknown>): Promise<Throughput> => {
            const t0 = performance.now();
            const { commands } = await probe.count(run);
            const ms = performance.now() - t0;
            return { perSec: (jobs / ms) * 1000, cmdsPerJob: commands / jobs };
          };
          const processRow = async (concurrency: number, groups = 0) => {
            await c.fill(q, n, groups);
            let result!: Awaited<ReturnType<Contender['process']>>;
            const { commands } = await probe.count(async () => (result = await c.process(q, n, concurrency)));
            return { t: { perSec: (n / result.ms) * 1000, cmdsPerJob: commands / n }, result };
          };
          switch (row) {
            case 'add-single':
              keep(`${row}/${c.name}`, await timed(n / 2, () => c.addSingle(q, n / 2, 100)));
              break;
            case 'add-bulk':
              keep(`${row}/${c.name}`, await timed(n, () => c.addBulk(q, n, 1000)));
              break;
            case 'c1':
            case 'c10':
            case 'c100':
              keep(`${row}/${c.name}`, (await processRow(Number(row.slice(1)))).t);
              break;
            case 'latency': {
              const samples = await c.latency(q, LATENCY_SAMPLES);
              latency.set(c.name, [...(latency.get(c.name) ?? []), ...samples]);
              break;
            }
            case 'events': {
              // Spool only: c100 with the event stream on (the default) and off, in alternating order.
              if (c !== spool) break;
              for (const on of r % 2 === 0 ? [true, false] : [false, true]) {
                await probe.reset();
                await spool.setEvents(q, on);
                keep(`events-${on ? 'on' : 'off'}/Spool`, (await processRow(100)).t);
              }
              break;
            }
            case 'groups': {
              keep(`c50/${c.name}`, (await processRow(GROUP_CONCURRENCY)).t);
              if (c !== spool) break;
              await probe.reset();
              const { t, result } = await processRow(GROUP_CONCURRENCY, GROUPS);
              const prev = best.get('groups/Spool');
              keep('groups/Spool', t);
              if (!prev || t.perSec > prev.perSec) {
                const done = [...result.groupDone.values()];
                groupSpread = { min: Math.min(...done), max: Math.max(...done), ms: result.ms };
              }
              break;
            }
          }
        }
      }
    }
  } finally {
    await spool.close();
    await bull.close();
    await probe.close();
    await redis.stop();
  }

  const header = ['row', 'Spool', 'BullMQ', 'Spool/BullMQ', 'target', 'cmds/job Spool', 'cmds/job BullMQ'];
  const rows: string[][] = [];
  const label: Record<string, string> = {
    'add-single': 'add one by one (100 in flight), jobs/s',
    'add-bulk': 'bulk add (1,000 per call), jobs/s',
    c1: `process ${fmt(n)} no-op jobs, concurrency 1, jobs/s`,
    c10: 'process, concurrency 10, jobs/s',
    c100: 'process, concurrency 100, jobs/s',
  };
  const status = (ratio: number, target: number) => `>= ${target.toFixed(1)} ${ratio >= target ? 'ok' : 'MISS'}`;
  for (const row of ['add-single', 'add-bulk', 'c1', 'c10', 'c100'] as const) {
    const s = best.get(`${row}/Spool`);
    const b = best.get(`${row}/BullMQ`);
    if (!s || !b) continue;
    const ratio = s.perSec / b.perSec;
    rows.push([label[row]!, fmt(s.perSec), fmt(b.perSec), fmt(ratio, 2), status(ratio, row === 'add-bulk' ? 2 : 1), fmt(s.cmdsPerJob, 1), fmt(b.cmdsPerJob, 1)]);
  }
  const ls = latency.get('Spool');
  const lb = latency.get('BullMQ');
  if (ls && lb) {
    ls.sort((a, b) => a - b);
    lb.sort((a, b) => a - b);
    for (const p of [50, 95, 99]) {
      const s = percentile(ls, p);
      const b = percentile(lb, p);
      rows.push([`add-to-start latency p${p}, ms (ratio: BullMQ/Spool)`, fmt(s, 2), fmt(b, 2), fmt(b / s, 2), '', '', '']);
    }
  }
  const g = best.get('groups/Spool');
  const u = best.get('c50/Spool');
  const ub = best.get('c50/BullMQ');
  if (g && u && ub) {
    rows.push(['process, concurrency 50, ungrouped, jobs/s', fmt(u.perSec), fmt(ub.perSec), fmt(u.perSec / ub.perSec, 2), status(u.perSec / ub.perSec, 1), fmt(u.cmdsPerJob, 1), fmt(ub.cmdsPerJob, 1)]);
    const keepRatio = g.perSec / u.perSec;
    rows.push([`${GROUPS} groups x ${fmt(n / GROUPS)} jobs, c50, jobs/s (ratio: vs Spool ungrouped)`, fmt(g.perSec), 'n/a', fmt(keepRatio, 2), `>= 0.7 ${keepRatio >= 0.7 ? 'ok' : 'MISS'}`, fmt(g.cmdsPerJob, 1), '']);
    if (groupSpread) {
      const { min, max, ms } = groupSpread;
      rows.push([`  group completion: first..last group done, ms (spread % of run)`, `${fmt(min)}..${fmt(max)}`, '', fmt(((max - min) / ms) * 100, 1) + '%', '', '', '']);
    }
  }
  const on = best.get('events-on/Spool');
  const off = best.get('events-off/Spool');
  if (on && off) {
    const kept = on.perSec / off.perSec;
    rows.push(['process c100, event stream on (ratio: vs off)', fmt(on.perSec), 'n/a', fmt(kept, 2), `>= 0.85 ${kept >= 0.85 ? 'ok' : 'MISS'}`, fmt(on.cmdsPerJob, 1), '']);
    rows.push(['process c100, event stream off, jobs/s', fmt(off.perSec), 'n/a', '', '', fmt(off.cmdsPerJob, 1), '']);
  }
  console.log('\n' + renderTable(header, rows));
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
