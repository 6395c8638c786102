import { performance } from 'node:perf_hooks';
import { PgBoss, type Job } from 'pg-boss';
import type { BenchData, Contender, ProcessResult } from '../contender.js';
import { inFlight, RUN_LIMIT_MS, sleep, WARM_UP_JOBS } from '../measure.js';

/**
 * pg-boss 12 with its defaults (pool of 10, schema `pgboss`, completed jobs
 * kept 7 days) and the options that make it fast rather than its polling
 * defaults: LISTEN/NOTIFY on (`useListenNotify`, queues created with
 * `notify: true`), and a worker at concurrency c is one `work()` fetching
 * `batchSize: c` jobs per call and running them all at once (pg-boss's own
 * way to many jobs in flight), with burst mode so it fetches again at once
 * while fetches come back full or jobs are ready (`burstWhenBatchFull`,
 * `burstWhenReadyExceeds: 1` (its floor) with its queue cache refreshed every second,
 * which is what lets c1 burst: batchSize 1 ignores burstWhenBatchFull).
 * pollingIntervalSeconds 0.5 is its floor. A job counts as done when its
 * `completed` state is committed, not when the handler returns.
 */
export class PgBossContender implements Contender {
  readonly name = 'pg-boss';
  private boss: PgBoss | undefined;
  private readonly created = new Set<string>();

  async open(url: string): Promise<void> {
    const boss = new PgBoss({ connectionString: url, schema: 'pgboss', useListenNotify: true, monitorIntervalSeconds: 1, queueCacheIntervalSeconds: 1, superviseIntervalSeconds: 1 });
    boss.on('error', (err: unknown) => console.error('pg-boss error:', err));
    await boss.start();
    this.boss = boss;
    this.created.clear();
  }

  async warmUp(): Promise<void> {
    await this.addBulk('warm-up', WARM_UP_JOBS, 1000);
    await this.addSingle('warm-up', WARM_UP_JOBS, 100);
    await this.process('warm-up', 2 * WARM_UP_JOBS, 10);
  }

  async close(): Promise<void> {
    await this.boss?.stop({ graceful: false, close: true, timeout: 5000 });
    // The bench's probe waits until the database has no session left (PgProbe.waitIdle) before it reads or drops it.
    this.boss = undefined;
  }

  /** pg-boss needs a queue created before jobs are sent to it. */
  private async queue(name: string): Promise<PgBoss> {
    const boss = this.boss!;
    if (!this.created.has(name)) {
      await boss.createQueue(name, { notify: true });
      this.created.add(name);
    }
    return boss;
  }

  async addSingle(name: string, n: number, width: number): Promise<void> {
    const boss = await this.queue(name);
    await inFlight(n, width, (i) => boss.send(name, { i, g: 0 }));
  }

  async addBulk(name: string, n: number, perCall: number): Promise<void> {
    const boss = await this.queue(name);
    for (let from = 0; from < n; from += perCall) {
      await boss.insert(name, Array.from({ length: Math.min(perCall, n - from) }, (_, k) => ({ data: { i: from + k, g: 0 } })));
    }
  }

  fill(name: string, n: number): Promise<void> {
    return this.addBulk(name, n, 1000);
  }

  /** Untimed, before a process row: waits until pg-boss's queue cache sees the ready jobs (burstWhenReadyExceeds reads it). */
  async settle(name: string, n: number): Promise<void> {
    await this.queue(name);
    const deadline = Date.now() + 10_000;
    while (((await this.boss!.getQueue(name))?.readyCount ?? 0) < n && Date.now() < deadline) await sleep(100);
    await sleep(1100); // one queue-cache refresh after the monitor counted them
  }

  async process(name: string, n: number, concurrency: number): Promise<ProcessResult> {
    const boss = await this.queue(name);
    let handled = 0;
    const start = performance.now();
    const id = await boss.work<BenchData>(
      name,
      { batchSize: concurrency, pollingIntervalSeconds: 0.5, burstWhenBatchFull: true, burstWhenReadyExceeds: 1 },
      async (jobs: Job<BenchData>[]) => {
        await Promise.all(jobs.map(async () => undefined));
        handled += jobs.length;
      },
    );
    const deadline = start + RUN_LIMIT_MS;
    // Completion is written after the handler returns: done when the database says n jobs completed.
    for (;;) {
      if (handled >= n) {
        const { rows } = await boss.getDb().executeSql(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'`, [name]);
        if ((rows[0] as { n: number }).n >= n) break;
      }
      if (performance.now() > deadline) throw new Error(`pg-boss: only ${handled} of ${n} jobs handled after ${RUN_LIMIT_MS / 1000} s: a stuck run`);
      await sleep(handled >= n ? 2 : 5);
    }
    const ms = performance.now() - start;
    await boss.offWork(name, { id, wait: true });
    return { ms, groupDone: new Map() };
  }

  async latency(name: string, samples: number): Promise<number[]> {
    const boss = await this.queue(name);
    const started = new Map<number, number>();
    let onStart: (() => void) | undefined;
    const id = await boss.work<BenchData>(name, { batchSize: 1, pollingIntervalSeconds: 0.5 }, async (jobs: Job<BenchData>[]) => {
      for (const job of jobs) started.set(job.data.i, performance.now());
      onStart?.();
    });
    await sleep(100); // the worker reaches its wait
    const out: number[] = [];
    for (let i = 0; i < samples; i++) {
      const begun = new Promise<void>((resolve) => (onStart = resolve));
      const t0 = performance.now();
      await boss.send(name, { i, g: 0 });
      await begun;
      out.push(started.get(i)! - t0);
      await sleep(5);
    }
    await boss.offWork(name, { id, wait: true });
    return out.sort((a, b) => a - b);
  }
}
