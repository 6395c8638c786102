import { performance } from 'node:perf_hooks';
import { Queue, Worker, type ConnectionOptions } from 'bullmq';
import type { BenchData, Contender, ProcessResult, Retention, Work } from '../contender.js';
import { inFlight, sleep, timeCompletions, WARM_UP_JOBS } from '../measure.js';

/** BullMQ (OSS) with its defaults, on ioredis connections it creates itself. */
export class BullContender implements Contender {
  readonly name = 'BullMQ';
  private connection: ConnectionOptions = {};
  private readonly queues = new Map<string, Queue>();

  async open(url: string): Promise<void> {
    const { hostname, port } = new URL(url);
    this.connection = { host: hostname, port: Number(port), maxRetriesPerRequest: null };
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

  private queue(name: string): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, { connection: this.connection, prefix: 'bull' });
      this.queues.set(name, queue);
    }
    return queue;
  }

  async addSingle(name: string, n: number, width: number): Promise<void> {
    const queue = this.queue(name);
    await queue.waitUntilReady();
    await inFlight(n, width, (i) => queue.add('noop', { i, g: 0 }));
  }

  async addBulk(name: string, n: number, perCall: number, retention: Retention = 'kept'): Promise<void> {
    const queue = this.queue(name);
    await queue.waitUntilReady();
    const opts = retention === 'removed' ? { removeOnComplete: true } : undefined;
    for (let from = 0; from < n; from += perCall) {
      await queue.addBulk(Array.from({ length: Math.min(perCall, n - from) }, (_, k) => ({ name: 'noop', data: { i: from + k, g: 0 }, opts })));
    }
  }

  /** removeOnComplete is a job option in BullMQ: set at add ('all' is its default, as 'kept'). */
  async fill(name: string, n: number, retention: Retention): Promise<void> {
    await this.addBulk(name, n, 1000, retention);
  }

  process(name: string, n: number, concurrency: number, _retention?: Retention, work?: Work): Promise<ProcessResult> {
    return timeCompletions(n, (onCompleted) => {
      const handler = work ? async (job: { data: BenchData }) => void (await work(job.data)) : async () => undefined;
      const worker = new Worker<BenchData>(name, handler, { connection: this.connection, prefix: 'bull', concurrency });
      worker.on('completed', (job) => onCompleted(job.data));
      return worker;
    });
  }

  async latency(name: string, samples: number): Promise<number[]> {
    const queue = this.queue(name);
    await queue.waitUntilReady();
    const started = new Map<number, number>();
    const worker = new Worker<BenchData>(name, async (job) => void started.set(job.data.i, performance.now()), {
      connection: this.connection,
      prefix: 'bull',
      concurrency: 1,
    });
    await worker.waitUntilReady();
    await sleep(100); // the worker reaches its blocking wait
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
