import { performance } from 'node:perf_hooks';
import BeeQueue from 'bee-queue';
import type { BenchData, Contender, ProcessResult, Retention, Work } from '../contender.js';
import { inFlight, sleep, timeCompletions, WARM_UP_JOBS } from '../measure.js';

/**
 * bee-queue with its defaults (keeps completed jobs, sends and receives job
 * events), on the redis@3 connections each Queue object creates itself.
 * Producer and worker are separate Queue objects, as BullMQ's Queue and Worker.
 */
export class BeeContender implements Contender {
  readonly name = 'bee-queue';
  private redis = { host: '127.0.0.1', port: 0 };
  private readonly producers = new Map<string, BeeQueue<BenchData>>();

  async open(url: string): Promise<void> {
    const { hostname, port } = new URL(url);
    this.redis = { host: hostname, port: Number(port) };
  }

  async warmUp(): Promise<void> {
    await this.addBulk('warm-up', WARM_UP_JOBS, 1000);
    await this.addSingle('warm-up', WARM_UP_JOBS, 100);
    await this.process('warm-up', 2 * WARM_UP_JOBS, 10, 'kept');
  }

  async close(): Promise<void> {
    await Promise.all([...this.producers.values()].map((q) => q.close()));
    this.producers.clear();
  }

  private async producer(name: string): Promise<BeeQueue<BenchData>> {
    let queue = this.producers.get(name);
    if (!queue) {
      queue = new BeeQueue<BenchData>(name, { redis: this.redis });
      this.producers.set(name, queue);
    }
    await queue.ready();
    return queue;
  }

  /** A worker Queue: removeOnSuccess is a queue setting in bee-queue, read by the worker. */
  private worker(name: string, retention: Retention): BeeQueue<BenchData> {
    return new BeeQueue<BenchData>(name, { redis: this.redis, ...(retention === 'removed' ? { removeOnSuccess: true } : {}) });
  }

  async addSingle(name: string, n: number, width: number): Promise<void> {
    const queue = await this.producer(name);
    await inFlight(n, width, (i) => queue.createJob({ i, g: 0 }).save());
  }

  async addBulk(name: string, n: number, perCall: number): Promise<void> {
    const queue = await this.producer(name);
    for (let from = 0; from < n; from += perCall) {
      const jobs = Array.from({ length: Math.min(perCall, n - from) }, (_, k) => queue.createJob({ i: from + k, g: 0 }));
      const errors = await queue.saveAll(jobs);
      if (errors.size > 0) throw [...errors.values()][0]!;
    }
  }

  async fill(name: string, n: number): Promise<void> {
    await this.addBulk(name, n, 1000);
  }

  process(name: string, n: number, concurrency: number, retention: Retention, work?: Work): Promise<ProcessResult> {
    return timeCompletions(n, (onCompleted) => {
      const worker = this.worker(name, retention);
      worker.on('succeeded', (job) => onCompleted(job.data));
      worker.process(concurrency, work ? async (job) => void (await work(job.data)) : async () => undefined);
      return { close: () => worker.close() };
    });
  }

  async latency(name: string, samples: number): Promise<number[]> {
    const queue = await this.producer(name);
    const started = new Map<number, number>();
    const worker = this.worker(name, 'kept');
    worker.process(1, async (job) => void started.set(job.data.i, performance.now()));
    await worker.ready();
    await sleep(100); // the worker reaches its blocking wait
    const out: number[] = [];
    for (let i = 0; i < samples; i++) {
      const completed = new Promise<void>((resolve) => worker.once('succeeded', () => resolve()));
      const t0 = performance.now();
      await queue.createJob({ i, g: 0 }).save();
      await completed;
      out.push(started.get(i)! - t0);
      await sleep(5);
    }
    await worker.close();
    return out.sort((a, b) => a - b);
  }
}
