/**
 * Wake-up bench (issue 18): 20 idle workers, 3 jobs added at once, repeated.
 * Per transport and wake-up: claim calls (round trips to the claim script),
 * how many of them the Redis budget refused inside the script, how many
 * searched the queue and how many of those found nothing; and the wake
 * latency from the addBulk() call to each job's handler starting, p50 / p99.
 *
 *   npm run bench:wake                 # 200 rounds per transport
 *   npm run bench:wake -- --rounds=50
 *
 * Transports: Redis pub/sub with the in-script hint budget (the default),
 * NATS with the JetStream KV budget, NATS without a bucket (every idle
 * worker wakes), and Redis pub/sub with the budget bypassed (no hints).
 */
import { performance } from 'node:perf_hooks';
import { NatsNotify, Queue, RedisStore, Worker } from '../lib/index.js';
import type { ClaimOutcome, Fetch, NotifyAdapter } from '../lib/store/index.js';
import { percentile } from './measure.js';
import { BenchNats } from './nats-server.js';
import { BenchRedis } from './redis-server.js';
import { fmt, renderTable } from './table.js';

const WORKERS = 20;
const JOBS = 3;
const quiet = { log: () => undefined, warn: () => undefined, error: (m: string, e?: unknown) => process.stderr.write(`${m} ${e instanceof Error ? e.message : ''}\n`) };

/** Counts claim round trips; `bypassHints` claims as if no budget existed (the "no hints" row). */
class CountingStore extends RedisStore {
  calls = 0;
  empty = 0;
  refused = 0;
  bypassHints = false;
  override async claim(queue: string, fetch: Fetch): Promise<ClaimOutcome> {
    this.calls += 1;
    const woken = fetch.woken === true && !this.bypassHints;
    const outcome = await super.claim(queue, woken ? fetch : { ...fetch, woken: false });
    if (outcome.jobs.length === 0) this.empty += 1;
    // A woken claim that took nothing was refused by the Redis budget inside the script (it read no index).
    if (woken && outcome.jobs.length === 0) this.refused += 1;
    return outcome;
  }
}

interface Row {
  readonly name: string;
  readonly calls: number;
  readonly empty: number;
  readonly refused: number;
  readonly p50: number;
  readonly p99: number;
}

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((r) => setImmediate(r));
  }
}

async function measure(name: string, redisUrl: string, rounds: number, notify: NotifyAdapter | undefined, bypassHints = false): Promise<Row> {
  const store = new CountingStore({ url: redisUrl, prefix: `wake-${Math.random().toString(36).slice(2, 8)}`, logger: quiet, ...(notify && { notify }) });
  store.bypassHints = bypassHints;
  await store.connect();
  const queue = new Queue<number>('wake', { store });
  let addedAt = 0;
  let done = 0;
  const latencies: number[] = [];
  const workers = Array.from(
    { length: WORKERS },
    () =>
      new Worker<number>(
        'wake',
        async () => {
          latencies.push(performance.now() - addedAt);
          done += 1;
        },
        { store, concurrency: 1, pollInterval: 600_000, logger: quiet },
      ),
  );
  await Promise.all(workers.map((w) => w.run()));
  await until(() => store.calls >= WORKERS, 'every worker to look once');
  const warmup = 10;
  let calls = 0;
  let empty = 0;
  let refused = 0;
  for (let round = 0; round < warmup + rounds; round++) {
    if (round === warmup) {
      latencies.length = 0;
      [calls, empty, refused] = [store.calls, store.empty, store.refused];
    }
    const target = done + JOBS;
    addedAt = performance.now();
    await queue.addBulk(Array.from({ length: JOBS }, (_, i) => ({ name: 'x', data: i })));
    await until(() => done >= target, 'the round to finish');
    // Let refused or late claims of this round land before the next one.
    await new Promise((r) => setTimeout(r, 5));
  }
  calls = store.calls - calls;
  empty = store.empty - empty;
  refused = store.refused - refused;
  await Promise.all(workers.map((w) => w.close()));
  await store.disconnect();
  await notify?.close();
  const sorted = [...latencies].sort((a, b) => a - b);
  return { name, calls: calls / rounds, empty: empty / rounds, refused: refused / rounds, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

async function main(): Promise<void> {
  const roundsArg = process.argv.find((a) => a.startsWith('--rounds='));
  const rounds = roundsArg ? Number(roundsArg.slice('--rounds='.length)) : 200;
  const redis = await BenchRedis.start();
  const nats = await BenchNats.start();
  try {
    const rows: Row[] = [];
    rows.push(await measure('Redis pub/sub, hints in Redis', redis.url, rounds, undefined));
    rows.push(await measure('NATS, KV hints', redis.url, rounds, new NatsNotify({ servers: nats.url, kvBucket: 'bench_hints', logger: quiet })));
    rows.push(await measure('NATS, no bucket', redis.url, rounds, new NatsNotify({ servers: nats.url, logger: quiet })));
    rows.push(await measure('Redis pub/sub, no hints', redis.url, rounds, undefined, true));
    process.stdout.write(`${WORKERS} idle workers (concurrency 1), ${JOBS} jobs per addBulk, ${rounds} rounds; per wake-up:\n\n`);
    const header = ['transport', 'claim calls', 'refused by budget', 'searched', 'found nothing', 'wake p50 ms', 'wake p99 ms'];
    const cells = (r: Row) => [r.name, fmt(r.calls, 1), fmt(r.refused, 1), fmt(r.calls - r.refused, 1), fmt(r.empty - r.refused, 1), fmt(r.p50, 2), fmt(r.p99, 2)];
    process.stdout.write(`${renderTable(header, rows.map(cells))}\n`);
  } finally {
    await nats.stop();
    await redis.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
