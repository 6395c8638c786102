import { performance } from 'node:perf_hooks';
import { Queue, Worker, type ActiveJob } from '../../lib/index.js';
import { PostgresStore } from '../../lib/postgres/index.js';
import type { BenchData, Contender, ProcessResult } from '../contender.js';
import { inFlight, sleep, timeCompletions, WARM_UP_JOBS } from '../measure.js';

/**
 * Spool on PostgreSQL (`spool/postgres`) through its public engine API with
 * its defaults: one PostgresStore (pool of 10, LISTEN/NOTIFY wake-ups),
 * schema `spool`, completed jobs kept as on Redis (the newest 1,000 for a day).
 */
export class SpoolPgContender implements Contender {
  readonly name = 'Spool';
  private store: PostgresStore | undefined;

  async open(url: string): Promise<void> {
    this.store = new PostgresStore({ connectionString: url, schema: 'spool', migrate: true });
    await this.store.connect();
  }

  async warmUp(): Promise<void> {
    await this.addBulk('warm-up', WARM_UP_JOBS, 1000);
    await this.addSingle('warm-up', WARM_UP_JOBS, 100);
    await this.process('warm-up', 2 * WARM_UP_JOBS, 10);
  }

  async close(): Promise<void> {
    await this.store?.disconnect();
    this.store = undefined;
  }

  private queue(name: string): Queue<BenchData> {
    return new Queue<BenchData>(name, { store: this.store! });
  }

  async addSingle(name: string, n: number, width: number): Promise<void> {
    const queue = this.queue(name);
    await inFlight(n, width, (i) => queue.add('noop', { i, g: 0 }));
  }

  async addBulk(name: string, n: number, perCall: number): Promise<void> {
    const queue = this.queue(name);
    for (let from = 0; from < n; from += perCall) {
      await queue.addBulk(Array.from({ length: Math.min(perCall, n - from) }, (_, k) => ({ name: 'noop', data: { i: from + k, g: 0 } })));
    }
  }

  fill(name: string, n: number): Promise<void> {
    return this.addBulk(name, n, 1000);
  }

  process(name: string, n: number, concurrency: number): Promise<ProcessResult> {
    return timeCompletions(n, (onCompleted) => {
      const worker = new Worker<BenchData>(name, async () => undefined, { store: this.store!, concurrency });
      worker.on('completed', (job) => onCompleted(job.data));
      return worker;
    });
  }

  async latency(name: string, samples: number): Promise<number[]> {
    const queue = this.queue(name);
    const started = new Map<number, number>();
    const worker = new Worker<BenchData>(name, async (job: ActiveJob<BenchData>) => void started.set(job.data.i, performance.now()), { store: this.store!, concurrency: 1 });
    await worker.run();
    const out: number[] = [];
    for (let i = 0; i < samples; i++) {
      const completed = new Promise<void>((resolve) => worker.once('completed', () => resolve()));
      const t0 = performance.now();
      await queue.add('noop', { i, g: 0 });
      await completed;
      out.push(started.get(i)! - t0);
      await sleep(5); // let the worker go idle again
    }
    await worker.close();
    return out.sort((a, b) => a - b);
  }
}
