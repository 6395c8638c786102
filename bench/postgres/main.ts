/**
 * Spool on PostgreSQL vs BullMQ 6's PostgreSQL backend vs pg-boss, one
 * private PostgreSQL server, one run; Spool on Redis (a private
 * redis-server) in the same table for scale (issue 38).
 *   npm run bench:postgres [-- rows... --repeat=N --jobs=N --no-fsync]
 * rows: add-single add-bulk c1 c10 c100 latency (default: all).
 * Throughput is the best of the repeats; latency percentiles pool every sample.
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { Contender } from '../contender.js';
import { SpoolContender } from '../contenders/spool.js';
import { percentile, RedisProbe } from '../measure.js';
import { BenchRedis } from '../redis-server.js';
import { BullPgContender } from './bullmq-pg.js';
import { PgBossContender } from './pg-boss.js';
import { countRoundTrips, PgProbe, roundTrips, startPostgres, type Writes } from './probe.js';
import { printPgReport, type PgResults, type RowCost } from './report.js';
import { SpoolPgContender } from './spool-pg.js';

export const PG_ROWS = ['add-single', 'add-bulk', 'c1', 'c10', 'c100', 'latency'] as const;
export type PgRow = (typeof PG_ROWS)[number];

interface Args {
  readonly rows: readonly PgRow[];
  readonly repeat: number;
  readonly jobs: number;
  readonly durable: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  let repeat = 1;
  let jobs = 10_000;
  let durable = true;
  const rows: PgRow[] = [];
  for (const arg of argv) {
    const [key, value] = arg.split('=');
    if (key === '--repeat') repeat = Number(value);
    else if (key === '--jobs') jobs = Number(value);
    else if (arg === '--no-fsync') durable = false;
    else if ((PG_ROWS as readonly string[]).includes(arg)) rows.push(arg as PgRow);
    else throw new Error(`unknown argument "${arg}": rows are ${PG_ROWS.join(', ')}; options --repeat=N, --jobs=N, --no-fsync`);
  }
  if (!Number.isInteger(repeat) || repeat < 1) throw new Error('--repeat must be a positive integer');
  if (!Number.isInteger(jobs) || jobs < 100) throw new Error('--jobs must be an integer >= 100');
  return { rows: rows.length ? PG_ROWS.filter((row) => rows.includes(row)) : [...PG_ROWS], repeat, jobs, durable };
}

const LATENCY_SAMPLES = 200;
const CONCURRENCY: Record<string, number> = { c1: 1, c10: 10, c100: 100 };

/** A Postgres contender and its database (a fresh copy of its migrated template per row). */
interface PgSide {
  readonly contender: Contender & { settle?(queue: string, n: number): Promise<void> };
  readonly db: string;
}

/** What one timed phase did, per job. */
function cost(jobs: number, trips: number, before: Writes, after: Writes): RowCost {
  return {
    tripsPerJob: trips / jobs,
    insPerJob: (after.ins - before.ins) / jobs,
    updPerJob: (after.upd - before.upd) / jobs,
    delPerJob: (after.del - before.del) / jobs,
  };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const started = performance.now();
  countRoundTrips();
  const server = await startPostgres(args.durable);
  const redis = await BenchRedis.start();
  const probe = new PgProbe(server);
  const redisProbe = new RedisProbe(redis.url);
  const sides: PgSide[] = [
    { contender: new SpoolPgContender(), db: 'bench_spool' },
    { contender: new BullPgContender(), db: 'bench_bullmq' },
    { contender: new PgBossContender(), db: 'bench_pgboss' },
  ];
  const spoolRedis = new SpoolContender();
  const results: PgResults = { jobs: args.jobs, throughput: new Map(), latency: new Map(), costs: new Map(), redisCmds: new Map() };
  try {
    await probe.open();
    await redisProbe.open();
    console.log(`PostgreSQL on port ${server.port} (fsync ${args.durable ? 'on' : 'off'}), redis-server on ${redis.port}; ${cpus().length} cores, load ${loadavg()[0]!.toFixed(1)}`);
    for (const side of sides) {
      // The template: the library's schema migrated once, so each row starts from an empty, migrated database.
      const url = await probe.freshDatabase(`${side.db}_tpl`);
      await side.contender.open(url);
      await side.contender.close();
      await probe.waitIdle(`${side.db}_tpl`);
      await side.contender.open(await probe.freshDatabase(side.db, `${side.db}_tpl`));
      await side.contender.warmUp();
      await side.contender.close();
      console.log(`warmed up ${side.contender.name} (PostgreSQL)`);
    }
    await spoolRedis.open(redis.url);
    await spoolRedis.warmUp();

    for (const row of args.rows) {
      for (let rep = 0; rep < args.repeat; rep++) {
        const order = [...sides.slice(rep % sides.length), ...sides.slice(0, rep % sides.length)];
        for (const side of order) await runPgRow(row, side, args.jobs, probe, results);
        await runRedisRow(row, spoolRedis, args.jobs, redisProbe, results);
      }
      if (row === 'latency') results.latency.set('SELECT 1', await probe.selectAfterPause('postgres', LATENCY_SAMPLES, 5));
      console.log(`row ${row} done (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    }
    printPgReport(results, args.rows);
    console.log(`\nwall ${((performance.now() - started) / 1000).toFixed(0)} s, load ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    for (const side of sides) await side.contender.close().catch(() => undefined);
    await spoolRedis.close().catch(() => undefined);
    await redisProbe.close().catch(() => undefined);
    await probe.close().catch(() => undefined);
    await redis.stop();
    await server.dispose();
  }
}

function keepBest(results: PgResults, key: string, perSec: number): boolean {
  const prev = results.throughput.get(key);
  if (prev !== undefined && prev >= perSec) return false;
  results.throughput.set(key, perSec);
  return true;
}

/** One row of one Postgres contender on a fresh database: untimed fill, reopen, timed phase counted. */
async function runPgRow(row: PgRow, side: PgSide, jobs: number, probe: PgProbe, results: PgResults): Promise<void> {
  const { contender, db } = side;
  const url = await probe.freshDatabase(db, `${db}_tpl`);
  const queue = `q-${row}`;
  const concurrency = CONCURRENCY[row];
  const n = row === 'add-single' ? jobs / 2 : row === 'latency' ? LATENCY_SAMPLES : jobs;
  await contender.open(url);
  if (concurrency !== undefined) await contender.fill(queue, n, 'kept');
  await contender.close();
  const before = await probe.writes(db);
  await contender.open(url);
  if (concurrency !== undefined) await contender.settle?.(queue, n);
  const trips0 = roundTrips(db);
  const t0 = performance.now();
  let ms: number;
  if (row === 'add-single') {
    await contender.addSingle(queue, n, 100);
    ms = performance.now() - t0;
  } else if (row === 'add-bulk') {
    await contender.addBulk(queue, n, 1000);
    ms = performance.now() - t0;
  } else if (row === 'latency') {
    const samples = await contender.latency(queue, n);
    results.latency.set(contender.name, [...(results.latency.get(contender.name) ?? []), ...samples].sort((a, b) => a - b));
    ms = performance.now() - t0;
  } else {
    ms = (await contender.process(queue, n, concurrency!, 'kept')).ms;
  }
  const trips = roundTrips(db) - trips0;
  await contender.close();
  const after = await probe.writes(db);
  const key = `${row}/${contender.name}`;
  if (row === 'latency' || keepBest(results, key, (n / ms) * 1000)) results.costs.set(key, cost(n, trips, before, after));
  const shown = row === 'latency' ? `p50 ${percentile(results.latency.get(contender.name)!, 50).toFixed(2)} ms` : `${Math.round((n / ms) * 1000)} jobs/s`;
  console.log(`  ${row} ${contender.name}: ${shown}, ${(trips / n).toFixed(2)} round trips/job`);
}

/** The same row for Spool on Redis: FLUSHALL first, Redis commands per job. */
async function runRedisRow(row: PgRow, spool: SpoolContender, jobs: number, probe: RedisProbe, results: PgResults): Promise<void> {
  await probe.reset();
  const queue = `q-${row}`;
  const concurrency = CONCURRENCY[row];
  const n = row === 'add-single' ? jobs / 2 : row === 'latency' ? LATENCY_SAMPLES : jobs;
  if (concurrency !== undefined) await spool.fill(queue, n, 'kept');
  const { value: ms, commands } = await probe.count(async () => {
    const t0 = performance.now();
    if (row === 'add-single') await spool.addSingle(queue, n, 100);
    else if (row === 'add-bulk') await spool.addBulk(queue, n, 1000);
    else if (row === 'latency') results.latency.set('Spool on Redis', [...(results.latency.get('Spool on Redis') ?? []), ...(await spool.latency(queue, n))].sort((a, b) => a - b));
    else return (await spool.process(queue, n, concurrency!, 'kept')).ms;
    return performance.now() - t0;
  });
  if (row !== 'latency' && keepBest(results, `${row}/Spool on Redis`, (n / ms) * 1000)) results.redisCmds.set(row, commands / n);
  if (row === 'latency') results.redisCmds.set(row, commands / n);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
