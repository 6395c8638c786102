import { performance } from 'node:perf_hooks';
import { Queue, Worker, createPostgresBackend, type JobProgress, type PostgresConnectionOptions, type PostgresPoolConfig, type PostgresQueueBackend } from 'bullmq';
import type { BenchData, Contender, ProcessResult } from '../contender.js';
import { inFlight, sleep, timeCompletions, WARM_UP_JOBS } from '../measure.js';

/**
 * BullMQ 6's PostgreSQL backend (`createPostgresBackend`) with its defaults:
 * each Queue and Worker given a pool config (schema `bullmq`, migrated on
 * connect), so each builds its own pg pool (node-postgres' default of 10) and
 * its workers wait on LISTEN; completed jobs kept (its default).
 */
type PgQueue = Queue<BenchData, unknown, string, BenchData, unknown, string, PostgresQueueBackend, PostgresConnectionOptions>;
type PgWorker = Worker<BenchData, undefined, string, PostgresQueueBackend, JobProgress, PostgresConnectionOptions>;

export class BullPgContender implements Contender {
  readonly name = 'BullMQ';
  private connection: PostgresPoolConfig = {};
  private readonly queues = new Map<string, PgQueue>();

  async open(url: string): Promise<void> {
    this.connection = { connectionString: url, schema: 'bullmq', migrate: true };
    const probe: PgQueue = this.queue('open');
    await probe.waitUntilReady();
  }

  async warmUp(): Promise<void> {
    await this.addBulk('warm-up', WARM_UP_JOBS, 1000);
    await this.addSingle('warm-up', WARM_UP_JOBS, 100);
    await this.process('warm-up', 2 * WARM_UP_JOBS, 10);
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
  }

  private queue(name: string): PgQueue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection }, createPostgresBackend) as PgQueue;
      this.queues.set(name, queue);
    }
    return queue;
  }

  async addSingle(name: string, n: number, width: number): Promise<void> {
    const queue = this.queue(name);
    await queue.waitUntilReady();
    await inFlight(n, width, (i) => queue.add('noop', { i, g: 0 }));
  }

  async addBulk(name: string, n: number, perCall: number): Promise<void> {
    const queue = this.queue(name);
    await queue.waitUntilReady();
    for (let from = 0; from < n; from += perCall) {
      await queue.addBulk(Array.from({ length: Math.min(perCall, n - from) }, (_, k) => ({ name: 'noop', data: { i: from + k, g: 0 } })));
    }
  }

  fill(name: string, n: number): Promise<void> {
    return this.addBulk(name, n, 1000);
  }

  process(name: string, n: number, concurrency: number): Promise<ProcessResult> {
    return timeCompletions(n, (onCompleted) => {
      const worker: PgWorker = new Worker(name, async () => undefined, { connection: this.connection, concurrency }, createPostgresBackend);
      worker.on('completed', (job) => onCompleted(job.data));
      return worker;
    });
  }

  async latency(name: string, samples: number): Promise<number[]> {
    const queue = this.queue(name);
    await queue.waitUntilReady();
    const started = new Map<number, number>();
    const worker: PgWorker = new Worker(name, async (job: { data: BenchData }) => void started.set(job.data.i, performance.now()), { connection: this.connection, concurrency: 1 }, createPostgresBackend);
    await worker.waitUntilReady();
    await sleep(100); // the worker reaches its LISTEN wait
    const out: number[] = [];
    for (let i = 0; i < samples; i++) {
      const completed = new Promise<void>((resolve) => worker.once('completed', () => resolve()));
      const t0 = performance.now();
      await queue.add('noop', { i, g: 0 });
      await completed;
      out.push(started.get(i)! - t0);
      await sleep(5);
    }
    await worker.close();
    return out.sort((a, b) => a - b);
  }
}
