/**
 * Spool vs BullMQ vs bee-queue, same process, same private redis-server, one run.
 *   npm run bench [-- rows... --repeat=N --jobs=N]
 *   npm run bench -- profile [--jobs=N --retention=kept|removed]   (see profile.ts)
 * rows: add-single add-bulk ceilings c1 c10 c100 handlers latency memory groups events batch (default: all).
 * Process rows (no-op and handlers) run twice: completed jobs kept (each library's default) and removed.
 * Throughput is the best of the repeats; latency percentiles pool every sample.
 */
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Contender, Retention, Work } from './contender.js';
import { BeeContender } from './contenders/bee-queue.js';
import { BullContender } from './contenders/bullmq.js';
import { SpoolContender } from './contenders/spool.js';
import { RedisProbe } from './measure.js';
import { BenchRedis } from './redis-server.js';
import { CEILINGS, CeilingProbe } from './ceilings.js';
import { HANDLER_ROWS, handlerJobs } from './handlers.js';
import { runProfile } from './profile.js';
import { printReport } from './report.js';
import { FLOOR, Results, type Throughput } from './results.js';

const ROWS = ['add-single', 'add-bulk', 'ceilings', 'c1', 'c10', 'c100', 'handlers', 'latency', 'memory', 'groups', 'events', 'batch'] as const;
type Row = (typeof ROWS)[number];
const RETENTIONS: readonly Retention[] = ['kept', 'removed'];

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
  // The add rows' targets are ratios to the raw ceilings: measured with them, in the rows' order (right after the adds).
  if (rows.some((row) => row === 'add-single' || row === 'add-bulk')) rows.push('ceilings');
  return { rows: rows.length ? ROWS.filter((row) => rows.includes(row)) : [...ROWS], repeat, jobs };
}

const GROUPS = 100;
const GROUP_CONCURRENCY = 50;
const LATENCY_SAMPLES = 300;
const MEMORY_JOBS = 20_000;
/** The batch row's jobs (fewer when --jobs says so). */
const BATCH_JOBS = 10_000;

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const redis = await BenchRedis.start();
  const probe = new RedisProbe(redis.url);
  await probe.open();
  const ceilings = new CeilingProbe(redis.url);
  await ceilings.open();
  const spool = new SpoolContender();
  const contenders: Contender[] = [spool, new BullContender(), new BeeContender()];
  for (const c of contenders) await c.open(redis.url);
  // Scripts loaded once up front (FLUSHALL between rows keeps them): no row pays for NOSCRIPT fallbacks.
  for (const c of contenders) await c.warmUp();
  const cpu = cpus();
  console.log(`redis-server on port ${redis.port}; node ${process.version}; ${cpu.length} cores (${cpu[0]?.model ?? '?'}); jobs=${args.jobs} repeat=${args.repeat}`);

  const results = new Results(args.jobs, GROUPS);
  /** Wall time per row over every repeat, s: which rows a full run's length comes from. */
  const rowSeconds = new Map<Row, number>();
  const n = args.jobs;
  try {
    for (let r = 0; r < args.repeat; r++) {
      // Rotate who goes first, so warm-up and drift do not favour one side.
      const order = contenders.map((_, k) => contenders[(k + r) % contenders.length]!);
      for (const row of args.rows) {
        const rowStarted = performance.now();
        for (const c of order) {
          const q = `${row}-${r}`;
          await probe.reset();
          const timed = async (jobs: number, run: () => Promise<unknown>): Promise<Throughput> => {
            const t0 = performance.now();
            const { commands } = await probe.count(run);
            const ms = performance.now() - t0;
            return { perSec: (jobs / ms) * 1000, cmdsPerJob: commands / jobs };
          };
          const processRow = async (queue: string, concurrency: number, retention: Retention, groups = 0, setUp?: () => Promise<void>, work?: Work, jobs = n) => {
            await probe.reset();
            await setUp?.();
            await c.fill(queue, jobs, retention, groups);
            let result!: Awaited<ReturnType<Contender['process']>>;
            const { commands } = await probe.count(async () => (result = await c.process(queue, jobs, concurrency, retention, work)));
            return { t: { perSec: (jobs / result.ms) * 1000, cmdsPerJob: commands / jobs }, result };
          };
          // Alternate which retention goes first, as the contenders.
          const retentions = r % 2 === 0 ? RETENTIONS : [...RETENTIONS].reverse();
          switch (row) {
            case 'add-single':
              results.keep(`${row}/${c.name}`, await timed(n / 2, () => c.addSingle(q, n / 2, 100)));
              break;
            case 'add-bulk':
              results.keep(`${row}/${c.name}`, await timed(n, () => c.addBulk(q, n, 1000)));
              break;
            case 'ceilings':
              // Not a contender's: once a repeat, next to the add rows, on the same Redis (FLUSHALL before each).
              if (c !== order[0]) break;
              for (const [ceiling, ops] of [
                [CEILINGS.setInFlight, n / 2],
                [CEILINGS.setPipelined, n],
                [CEILINGS.evalsha, n / 2],
              ] as const) {
                await probe.reset();
                results.keep(`ceiling/${ceiling}`, { perSec: await ceilings.run(ceiling, ops), cmdsPerJob: 1 });
              }
              break;
            case 'c1':
            case 'c10':
            case 'c100':
              for (const retention of retentions) {
                results.keep(`${row}-${retention}/${c.name}`, (await processRow(`${q}-${retention}`, Number(row.slice(1)), retention)).t);
              }
              break;
            case 'handlers':
              // Handlers that await I/O: N per row sized to take about the same time at its bound (handlers.ts).
              for (const h of HANDLER_ROWS) {
                for (const retention of retentions) {
                  const { t } = await processRow(`${q}-${h.key}-${retention}`, h.concurrency, retention, 0, undefined, h.work, handlerJobs(h, n));
                  results.keep(`${h.key}-${retention}/${c.name}`, t);
                }
              }
              break;
            case 'latency':
              results.addLatency(c.name, await c.latency(q, LATENCY_SAMPLES));
              // The floor, once a repeat, in the same conditions: a bare round trip after the same 5 ms pause.
              if (c === order[order.length - 1]) results.addLatency(FLOOR, await probe.pingAfterPause(LATENCY_SAMPLES, 5));
              break;
            case 'memory': {
              // Waiting jobs only (no worker): used_memory grown per job, same payloads on every side.
              // At least MEMORY_JOBS: with a few hundred jobs buffers and allocator steps dominate the delta.
              const jobs = Math.max(n, MEMORY_JOBS);
              const before = await probe.usedMemory();
              await c.fill(q, jobs, 'kept');
              results.memory.set(c.name, ((await probe.usedMemory()) - before) / jobs);
              // Retained completed jobs: the same jobs run to completion at c100, every one kept ('all'), and
              // everything the library holds after that per job (job hashes, indexes, event stream, metrics).
              await probe.reset();
              const empty = await probe.usedMemory();
              await c.fill(`${q}-done`, jobs, 'all');
              await c.process(`${q}-done`, jobs, 100, 'all');
              results.memoryCompleted.set(c.name, ((await probe.usedMemory()) - empty) / jobs);
              break;
            }
            case 'events': {
              // Spool only: c100 with the event stream on (the default) and off, in alternating order.
              if (c !== spool) break;
              for (const on of r % 2 === 0 ? [true, false] : [false, true]) {
                const queue = `${q}-${on ? 'on' : 'off'}`;
                const setUp = () => spool.setEvents(queue, on);
                results.keep(`events-${on ? 'on' : 'off'}/Spool`, (await processRow(queue, 100, 'kept', 0, setUp)).t);
              }
              break;
            }
            case 'batch': {
              // Spool only: each job written to a sink, one write per job vs one per batch of 100, alternating order.
              if (c !== spool) break;
              const jobs = Math.min(n, BATCH_JOBS);
              for (const sink of ['pipelined', 'serial'] as const) {
                for (const mode of r % 2 === 0 ? (['per-job', 'batch'] as const) : (['batch', 'per-job'] as const)) {
                  const queue = `${q}-${sink}-${mode}`;
                  await probe.reset();
                  await spool.fill(queue, jobs, 'kept');
                  const result = await spool.sinkProcess(queue, jobs, mode, sink);
                  results.keep(`batch-${sink}-${mode}/Spool`, { perSec: (jobs / result.ms) * 1000, cmdsPerJob: 0 });
                }
              }
              break;
            }
            case 'groups': {
              results.keep(`c50/${c.name}`, (await processRow(q, GROUP_CONCURRENCY, 'kept')).t);
              if (c !== spool) break;
              const { t, result } = await processRow(`${q}-grouped`, GROUP_CONCURRENCY, 'kept', GROUPS);
              results.keepGroups(t, result);
              break;
            }
          }
        }
        rowSeconds.set(row, (rowSeconds.get(row) ?? 0) + (performance.now() - rowStarted) / 1000);
      }
    }
  } finally {
    for (const c of contenders) await c.close();
    await ceilings.close();
    await probe.close();
    await redis.stop();
  }
  printReport(results);
  console.log(`\nwhole run: ${((performance.now() - started) / 1000).toFixed(0)} s; per row (all repeats): ${[...rowSeconds].map(([row, sec]) => `${row} ${sec.toFixed(0)} s`).join(', ')}`);
}

const argv = process.argv.slice(2);
(argv[0] === 'profile' ? runProfile(argv.slice(1)) : main()).catch((err) => {
  console.error(err);
  // The redis-server is stopped by now (main's finally); a stuck run's worker may still hold timers
  // and reconnecting sockets, which would keep node alive.
  process.exit(1);
});
