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
  /**
   * Default false: declared schedulers are stored (getSchedulers() lists
   * them) but never tick, so a test sees only the jobs it causes. true: they
   * tick on the testing clock (with clock 'manual', `clock.advance(ms)` drives them).
   */
  readonly schedules?: boolean;
}

/** Which jobs jobs() lists: by job name and/or state, on a named connection. */
export interface JobFilter {
  readonly name?: string;
  readonly state?: JobState;
  readonly connection?: string;
}

/** Which job runNext() / drain() run: the next of a job name (any when absent), on a named connection. */
export interface RunFilter {
  readonly name?: string;
  readonly connection?: string;
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
  private readonly schedules: boolean;
  private readonly stores = new Map<string, MemoryStore>();

  constructor(options: QueueTestingOptions = {}) {
    const { clock, timeout, schedules } = options;
    assertPlainObject(options, 'QueueTesting options');
    assertKnownKeys(options, ['mode', 'clock', 'timeout', 'schedules'], 'QueueTesting options');
    if (schedules !== undefined && typeof schedules !== 'boolean') throw new InvalidArgumentError('QueueTesting options.schedules', `must be true or false, got ${describe(schedules)}`);
    this.schedules = schedules ?? false;
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
      store = new MemoryStore({ clock: this.clock, schedules: this.schedules });
      store.gateClaims(this.mode === 'manual');
      this.stores.set(connection, store);
    }
    return store;
  }

  /**
   * Every job of a queue, oldest first, as stored now; a state or a filter
   * keeps only some: `jobs('emails', { name: 'welcome', state: 'waiting' })`.
   */
  jobs<Data = unknown, Result = unknown>(queue: string, filter?: JobState | JobFilter): Job<Data, Result>[] {
    const { name, state, connection } = typeof filter === 'string' ? { state: filter } : checkFilter<JobFilter>(filter, ['name', 'state', 'connection'], 'jobs()');
    const store = this.store(connection);
    return store
      .snapshot(queue)
      .filter((r) => (state === undefined || r.state === state) && (name === undefined || r.name === name))
      .map((r) => new Job<Data, Result>(queue, r, undefined, store));
  }

  /**
   * Manual mode: lets the queue's worker take the next waiting job (in the
   * order a worker would) and resolves with the job once that attempt is
   * over: completed, failed, or back to delayed/waiting for a retry. Null
   * when no job is waiting. With a name (`runNext('emails', 'welcome')`), the
   * next waiting job of that name; the others keep their places.
   */
  async runNext<Data = unknown, Result = unknown>(queue: string, filter?: string | RunFilter): Promise<Job<Data, Result> | null> {
    if (this.mode !== 'manual') throw new InvalidArgumentError('QueueTesting.runNext()', "runs jobs in 'manual' mode only", "use new QueueTesting({ mode: 'manual' }), or drain() in 'auto' mode");
    const { name, connection } = typeof filter === 'string' ? { name: filter } : checkFilter<RunFilter>(filter, ['name', 'connection'], 'runNext()');
    const store = this.store(connection);
    if (!store.snapshot(queue).some((r) => r.state === 'waiting' && (name === undefined || r.name === name))) return null;
    const id = await this.until<string>(`a worker of queue "${queue}" to take its next job (is there a @Processor('${queue}'), and is the queue free of rate limits and group caps?)`, (done) => {
      const onClaimed = (q: string, ids: string[]) => q === queue && done(ids[0]!);
      store.events.on('claimed', onClaimed);
      store.allowClaims(queue, 1, name);
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
   * Delayed jobs wait for their time (see clock.advance). `{ name }` runs or
   * waits for the jobs of that name only.
   */
  async drain<Data = unknown, Result = unknown>(queue: string, filter?: RunFilter): Promise<Job<Data, Result>[]> {
    const { name, connection } = checkFilter<RunFilter>(filter, ['name', 'connection'], 'drain()');
    const out: Job<Data, Result>[] = [];
    if (this.mode === 'manual') {
      for (let run = await this.runNext<Data, Result>(queue, filter); run; run = await this.runNext<Data, Result>(queue, filter)) out.push(run);
      return out;
    }
    const store = this.store(connection);
    const ended: string[] = [];
    const onSettled = (q: string, id: string) => q === queue && ended.push(id);
    store.events.on('settled', onSettled);
    try {
      const deadline = Date.now() + this.timeout;
      for (;;) {
        const left = store.snapshot(queue).filter((r) => (r.state === 'waiting' || r.state === 'active') && (name === undefined || r.name === name));
        if (left.length === 0) break;
        const waiting = left.filter((r) => r.state === 'waiting').length;
        if (Date.now() > deadline) throw new Error(`QueueTesting.drain(): queue "${queue}" still has ${waiting} waiting and ${left.length - waiting} active jobs${name === undefined ? '' : ` named "${name}"`} after ${this.timeout} ms (is there a @Processor('${queue}')?)`);
        // Unref'd: a drain left pending by a failed test must not hold the test runner open.
        await new Promise((r) => setTimeout(r, 5).unref());
      }
    } finally {
      store.events.off('settled', onSettled);
    }
    for (const id of ended) {
      const record = await store.getJob(queue, id);
      if (record && (name === undefined || record.name === name)) out.push(new Job<Data, Result>(queue, record, undefined, store));
    }
    return out;
  }

  private until<T>(what: string, start: (done: (value: T) => void) => () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let stop: (() => void) | undefined;
      let settled = false;
      const timer = setTimeout(() => finish(() => reject(new Error(`QueueTesting: timed out after ${this.timeout} ms waiting for ${what}`))), this.timeout);
      timer.unref();
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

/** Checks a filter object: a plain object of known keys (did-you-mean on a typo), string values. */
function checkFilter<F extends JobFilter | RunFilter>(filter: F | undefined, keys: readonly (keyof F & string)[], where: string): F {
  if (filter === undefined) return {} as F;
  assertPlainObject(filter, `QueueTesting.${where} filter`);
  assertKnownKeys(filter, keys, `QueueTesting.${where} filter`);
  for (const key of keys) {
    const value = (filter as Record<string, unknown>)[key];
    if (value !== undefined && typeof value !== 'string') throw new InvalidArgumentError(`QueueTesting.${where} filter.${key}`, `must be a string, got ${describe(value)}`);
  }
  return filter;
}
