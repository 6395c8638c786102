import { InvalidArgumentError } from '../engine/errors.js';
import { Job } from '../engine/job.js';
import { assertKnownKeys, assertPlainObject, describe } from '../engine/options.js';
import { SpoolConnections } from '../nest/connections.js';
import { MODULE_OPTIONS_TOKEN } from '../nest/module-definition.js';
import { DEFAULT_CONNECTION } from '../nest/tokens.js';
import type { JobState } from '../store/store.js';
import { MemoryClock, type ClockMode } from './memory-clock.js';
import { MemoryStore } from './memory-store.js';

/** 'auto': workers run jobs as soon as they are added, as in production; 'manual': jobs wait until runNext()/drain(). */
export type TestingMode = 'auto' | 'manual';

/** Options of `new QueueTesting(options)`: whether jobs run by themselves, and whose clock. */
export interface QueueTestingOptions {
  /** Default 'auto'. */
  readonly mode?: TestingMode;
  /** Default 'real'; 'manual' stops time until clock.advance(ms). */
  readonly clock?: ClockMode;
  /** How long runNext() waits for a worker to take and finish the job, in ms. Default 5,000. */
  readonly timeout?: number;
}

/** What Nest's TestingModuleBuilder offers that QueueTesting uses (typed here so this file never loads @nestjs/testing). */
export interface OverridableModuleBuilder<B> {
  overrideProvider(token: unknown): { useFactory(options: { factory: (...args: never[]) => unknown; inject?: unknown[] }): B };
}

/**
 * Runs your Nest app's queues in memory: no Redis, nothing to mock. One line
 * swaps the store of every connection under your unchanged AppModule; DTO
 * validation, processors, retries and flows work as in production.
 *
 * @example
 * const testing = new QueueTesting({ mode: 'manual' });
 * const moduleRef = await testing.apply(Test.createTestingModule({ imports: [AppModule] })).compile();
 * await moduleRef.init();
 * // ... call the code that enqueues ...
 * expect(testing.jobs('emails').map((j) => j.data)).toEqual([{ to: 'ada@example.com' }]);
 * const run = await testing.runNext('emails'); // run.state: 'completed', run.result ...
 */
export class QueueTesting {
  readonly mode: TestingMode;
  readonly clock: MemoryClock;
  private readonly timeout: number;
  private readonly stores = new Map<string, MemoryStore>();

  constructor(options: QueueTestingOptions = {}) {
    const { clock, timeout } = options;
    assertPlainObject(options, 'QueueTesting options');
    assertKnownKeys(options, ['mode', 'clock', 'timeout'], 'QueueTesting options');
    if (options.mode !== undefined && options.mode !== 'auto' && options.mode !== 'manual') {
      throw new InvalidArgumentError('QueueTesting options.mode', `must be 'auto' or 'manual', got ${describe(options.mode)}`);
    }
    this.mode = options.mode ?? 'auto';
    this.clock = new MemoryClock(clock ?? 'real');
    this.timeout = timeout ?? 5000;
  }

  /** Overrides the module's connections with in-memory stores; returns the builder to go on with (.compile()). */
  apply<B>(builder: OverridableModuleBuilder<B>): B {
    return builder.overrideProvider(SpoolConnections).useFactory({
      factory: (options: unknown) => {
        // Each app compiled from this builder starts empty (the previous one closed its stores on shutdown).
        for (const [name, store] of this.stores) if (store.isClosed) this.stores.delete(name);
        return SpoolConnections.inProcess(options, (name) => this.store(name));
      },
      // Optional: an app whose queues bring their own connections has no forRoot.
      inject: [{ token: MODULE_OPTIONS_TOKEN, optional: true }],
    });
  }

  /** The MemoryStore behind a connection. */
  store(connection: string = DEFAULT_CONNECTION): MemoryStore {
    let store = this.stores.get(connection);
    if (!store) {
      store = new MemoryStore({ clock: this.clock });
      store.gateClaims(this.mode === 'manual');
      this.stores.set(connection, store);
    }
    return store;
  }

  /** Every job of a queue, oldest first, as stored now (optionally only those in `state`). */
  jobs<Data = unknown, Result = unknown>(queue: string, state?: JobState, connection?: string): Job<Data, Result>[] {
    const store = this.store(connection);
    return store
      .snapshot(queue)
      .filter((r) => state === undefined || r.state === state)
      .map((r) => new Job<Data, Result>(queue, r, undefined, store));
  }

  /**
   * Manual mode: lets the queue's worker take the next waiting job (in the
   * order a worker would) and resolves with the job once that attempt is
   * over: completed, failed, or back to delayed/waiting for a retry. Null
   * when no job is waiting.
   */
  async runNext<Data = unknown, Result = unknown>(queue: string, connection?: string): Promise<Job<Data, Result> | null> {
    if (this.mode !== 'manual') throw new InvalidArgumentError('QueueTesting.runNext()', "runs jobs in 'manual' mode only", "use new QueueTesting({ mode: 'manual' }), or drain() in 'auto' mode");
    const store = this.store(connection);
    if ((await store.getCounts(queue)).waiting === 0) return null;
    const id = await this.until<string>(`a worker of queue "${queue}" to take its next job (is there a @Processor('${queue}'), and is the queue free of rate limits and group caps?)`, (done) => {
      const onClaimed = (q: string, ids: string[]) => q === queue && done(ids[0]!);
      store.events.on('claimed', onClaimed);
      store.allowClaims(queue, 1);
      return () => store.events.off('claimed', onClaimed);
    });
    await this.until<void>(`job ${id} of queue "${queue}" to finish its attempt`, (done) => {
      const onSettled = (q: string, settled: string) => q === queue && settled === id && done();
      store.events.on('settled', onSettled);
      void store.getJob(queue, id).then((r) => r?.state !== 'active' && done());
      return () => store.events.off('settled', onSettled);
    });
    const record = await store.getJob(queue, id);
    return record && new Job<Data, Result>(queue, record, undefined, store);
  }

  /**
   * Runs (manual) or waits for (auto) every waiting job of the queue, jobs
   * added meanwhile included; resolves with each attempt that ended, in order.
   * Delayed jobs wait for their time (see clock.advance).
   */
  async drain<Data = unknown, Result = unknown>(queue: string, connection?: string): Promise<Job<Data, Result>[]> {
    const out: Job<Data, Result>[] = [];
    if (this.mode === 'manual') {
      for (let run = await this.runNext<Data, Result>(queue, connection); run; run = await this.runNext<Data, Result>(queue, connection)) out.push(run);
      return out;
    }
    const store = this.store(connection);
    const ended: string[] = [];
    const onSettled = (q: string, id: string) => q === queue && ended.push(id);
    store.events.on('settled', onSettled);
    try {
      const deadline = Date.now() + this.timeout;
      for (;;) {
        const counts = await store.getCounts(queue);
        if (counts.waiting + counts.active === 0) break;
        if (Date.now() > deadline) throw new Error(`QueueTesting.drain(): queue "${queue}" still has ${counts.waiting} waiting and ${counts.active} active jobs after ${this.timeout} ms (is there a @Processor('${queue}')?)`);
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      store.events.off('settled', onSettled);
    }
    for (const id of ended) {
      const record = await store.getJob(queue, id);
      if (record) out.push(new Job<Data, Result>(queue, record, undefined, store));
    }
    return out;
  }

  private until<T>(what: string, start: (done: (value: T) => void) => () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let stop: (() => void) | undefined;
      let settled = false;
      const timer = setTimeout(() => finish(() => reject(new Error(`QueueTesting: timed out after ${this.timeout} ms waiting for ${what}`))), this.timeout);
      const finish = (action: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stop?.();
        action();
      };
      stop = start((value) => finish(() => resolve(value)));
      if (settled) stop();
    });
  }
}
