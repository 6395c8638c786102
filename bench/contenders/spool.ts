import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import { Queue, RedisStore, Worker, type ActiveJob, type JobOptions } from '../../lib/index.js';
import type { BenchData, Contender, ProcessResult, Retention, Work } from '../contender.js';
import { inFlight, sleep, timeCompletions, WARM_UP_JOBS } from '../measure.js';

/** Spool through its public engine API, one store (command + subscriber connection) for the whole run. */
export class SpoolContender implements Contender {
  readonly name = 'Spool';
  private store: RedisStore | undefined;
  /** The batch row's sink: a connection of its own, as a handler's database client would be. */
  private sink: ReturnType<typeof createClient> | undefined;

  async open(url: string): Promise<void> {
    this.store = new RedisStore({ url }, { prefix: 'bench' });
    await this.store.connect();
    this.sink = createClient({ url });
    await this.sink.connect();
  }

  async warmUp(): Promise<void> {
    await this.addBulk('warm-up', WARM_UP_JOBS, 1000);
    await this.addSingle('warm-up', WARM_UP_JOBS, 100);
    await this.process('warm-up', 2 * WARM_UP_JOBS, 10);
  }

  async close(): Promise<void> {
    await this.sink?.quit();
    await this.store?.disconnect();
  }

  private queue(name: string): Queue<BenchData> {
    return new Queue<BenchData>(name, { store: this.store! });
  }

  /** The queue's event stream on (the default) or off (queue meta, read by the scripts). */
  async setEvents(name: string, on: boolean): Promise<void> {
    await this.queue(name).configure({ events: on ? null : false });
  }

  async addSingle(name: string, n: number, width: number): Promise<void> {
    const queue = this.queue(name);
    await inFlight(n, width, (i) => queue.add('noop', { i, g: 0 }));
  }

  async addBulk(name: string, n: number, perCall: number): Promise<void> {
    const queue = this.queue(name);
    for (let from = 0; from < n; from += perCall) {
      const batch = Array.from({ length: Math.min(perCall, n - from) }, (_, k) => ({ name: 'noop', data: { i: from + k, g: 0 } }));
      await queue.addBulk(batch);
    }
  }

  /** removeOnComplete is a job option in Spool: set at add ('all': false, every completed job kept). */
  async fill(name: string, n: number, retention: Retention, groups = 0): Promise<void> {
    const queue = this.queue(name);
    const remove: JobOptions = retention === 'removed' ? { removeOnComplete: true } : retention === 'all' ? { removeOnComplete: false } : {};
    for (let from = 0; from < n; from += 1000) {
      const batch = Array.from({ length: Math.min(1000, n - from) }, (_, k) => {
        const i = from + k;
        const opts: JobOptions | undefined = groups > 0 ? { ...remove, group: { id: `t${i % groups}` } } : retention !== 'kept' ? remove : undefined;
        return { name: 'noop', data: { i, g: groups > 0 ? i % groups : 0 }, opts };
      });
      await queue.addBulk(batch);
    }
  }

  process(name: string, n: number, concurrency: number, _retention?: Retention, work?: Work): Promise<ProcessResult> {
    return timeCompletions(n, (onCompleted) => {
      const handler = work ? async (job: ActiveJob<BenchData>) => void (await work(job.data)) : async () => undefined;
      const worker = new Worker<BenchData>(name, handler, { store: this.store!, concurrency });
      worker.on('completed', (job) => onCompleted(job.data));
      return worker;
    });
  }

  /**
   * The batch row: each job's data written to a sink list, 200 slots: one
   * RPUSH per job ('per-job', concurrency 200), or one RPUSH of up to 100
   * values per call of a batch handler ('batch', size 100, maxWaitMs 50,
   * concurrency 200: two batches at once). `sink` 'pipelined': node-redis
   * sends writes issued together in one go (the kindest case for per-job
   * writes); 'serial': one write at a time, as on a single database
   * connection.
   */
  sinkProcess(name: string, n: number, mode: 'per-job' | 'batch', sink: 'pipelined' | 'serial'): Promise<ProcessResult> {
    const client = this.sink!;
    const key = `sink:${name}`;
    let last: Promise<unknown> = Promise.resolve();
    const write = (values: string[]): Promise<unknown> => {
      if (sink === 'pipelined') return client.rPush(key, values);
      last = last.then(() => client.rPush(key, values));
      return last;
    };
    return timeCompletions(n, (onCompleted) => {
      const store = this.store!;
      const worker =
        mode === 'batch'
          ? new Worker<BenchData>(name, async (jobs: ActiveJob<BenchData>[]) => void (await write(jobs.map((j) => String(j.data.i)))), { store, concurrency: 200, batch: { size: 100, maxWaitMs: 50 } })
          : new Worker<BenchData>(name, async (job) => void (await write([String(job.data.i)])), { store, concurrency: 200 });
      worker.on('completed', (job) => onCompleted(job.data));
      return worker;
    });
  }

  async latency(name: string, samples: number): Promise<number[]> {
    const queue = this.queue(name);
    const started = new Map<number, number>();
    const worker = new Worker<BenchData>(name, async (job) => void started.set(job.data.i, performance.now()), { store: this.store!, concurrency: 1 });
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
