import type { Job } from '../engine/job.js';
import type { ExportFilter } from '../engine/dead-letters.js';
import { JOB_STATES, type JobState } from '../store/store.js';
import { describe } from '../common/validation.js';

/**
 * Jest matchers on a queue, through its public reads (so they hold on a
 * MemoryStore under QueueTesting and on Redis alike). They read the store,
 * so they are async: `await expect(queue).toHaveJob('send', { to })`.
 */

/** What a queue must offer the matchers: a name and exportJobs() (every Queue does). */
export interface InspectableQueue {
  readonly name: string;
  exportJobs(state: JobState, filter?: ExportFilter): AsyncGenerator<Job>;
}

/** The part of Jest's matcher context these matchers use (typed here so this file never loads jest). */
export interface SpoolMatcherContext {
  readonly isNot?: boolean;
  equals(a: unknown, b: unknown): boolean;
  readonly utils: {
    printExpected(value: unknown): string;
    printReceived(value: unknown): string;
    matcherHint(name: string, received?: string, expected?: string, options?: { isNot?: boolean }): string;
  };
}

/** What a matcher returns to Jest. */
export interface SpoolMatcherResult {
  readonly pass: boolean;
  readonly message: () => string;
}

/** Jobs read per state for one assertion: a test queue holds far fewer; the bound keeps a runaway one from stalling the suite. */
const SCAN_LIMIT = 10_000;

/** Partial, recursive match as toMatchObject does it: every key of `expected` matches; asymmetric matchers (expect.any) work through `equals`. */
function matches(ctx: SpoolMatcherContext, actual: unknown, expected: unknown): boolean {
  if (expected === undefined) return true;
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length && expected.every((e, i) => matches(ctx, actual[i], e));
  }
  if (expected !== null && typeof expected === 'object' && Object.getPrototypeOf(expected) === Object.prototype) {
    if (actual === null || typeof actual !== 'object') return false;
    return Object.entries(expected).every(([k, v]) => matches(ctx, (actual as Record<string, unknown>)[k], v));
  }
  return ctx.equals(actual, expected);
}

function checkQueue(received: unknown, matcher: string): InspectableQueue {
  const q = received as Partial<InspectableQueue> | null;
  if (q === null || typeof q !== 'object' || typeof q.exportJobs !== 'function' || typeof q.name !== 'string') {
    throw new TypeError(`expect(queue).${matcher}(): the received value must be a Queue (got ${q === null ? 'null' : typeof q})`);
  }
  return q as InspectableQueue;
}

async function jobsOf(queue: InspectableQueue, name: string, states: readonly JobState[]): Promise<Job[]> {
  const out: Job[] = [];
  for (const state of states) {
    let n = 0;
    for await (const job of queue.exportJobs(state, { name })) {
      out.push(job);
      if (++n >= SCAN_LIMIT) break;
    }
  }
  return out.sort((a, b) => a.createdAt - b.createdAt);
}

function listed(ctx: SpoolMatcherContext, jobs: readonly Job[], show: (job: Job) => unknown): string {
  if (jobs.length === 0) return 'none';
  const lines = jobs.slice(0, 10).map((job) => `  ${job.id} (${job.state}): ${ctx.utils.printReceived(show(job))}`);
  return `\n${lines.join('\n')}${jobs.length > 10 ? `\n  ... and ${jobs.length - 10} more` : ''}`;
}

async function assertJob(
  ctx: SpoolMatcherContext,
  matcher: string,
  received: unknown,
  name: string,
  states: readonly JobState[],
  test: (job: Job) => boolean,
  expected: string,
  show: (job: Job) => unknown,
): Promise<SpoolMatcherResult> {
  const queue = checkQueue(received, matcher);
  if (typeof name !== 'string' || name === '') throw new TypeError(`expect(queue).${matcher}(name, ...): name must be a job name, got ${describe(name)}`);
  const jobs = await jobsOf(queue, name, states);
  const hit = jobs.find(test);
  const hint = ctx.utils.matcherHint(`.${matcher}`, 'queue', 'name, ...', { isNot: ctx.isNot });
  return {
    pass: hit !== undefined,
    message: () =>
      hit !== undefined
        ? `${hint}\n\nExpected queue "${queue.name}" not to have ${expected}, but job ${hit.id} is: ${ctx.utils.printReceived(show(hit))}`
        : `${hint}\n\nExpected queue "${queue.name}" to have ${expected}.\nJobs named "${name}" (${states.join(', ')}): ${listed(ctx, jobs, show)}`,
  };
}

/**
 * The matchers: `expect.extend(spoolMatchers)` once (a setup file), then
 * `await expect(queue).toHaveJob('welcome', { to: 'ada@example.com' })`.
 */
export const spoolMatchers = {
  /** A job of this name in any state, whose data matches `data` (partially, as toMatchObject; asymmetric matchers allowed). */
  toHaveJob(this: SpoolMatcherContext, received: unknown, name: string, data?: unknown): Promise<SpoolMatcherResult> {
    const what = `a job "${name}"${data === undefined ? '' : ` with data ${this.utils.printExpected(data)}`}`;
    return assertJob(this, 'toHaveJob', received, name, JOB_STATES, (job) => matches(this, job.data, data), what, (job) => job.data);
  },

  /** A completed job of this name, whose result matches `result` when given (partially, as toMatchObject). */
  toHaveCompleted(this: SpoolMatcherContext, received: unknown, name: string, result?: unknown): Promise<SpoolMatcherResult> {
    const what = `a completed job "${name}"${result === undefined ? '' : ` with result ${this.utils.printExpected(result)}`}`;
    return assertJob(this, 'toHaveCompleted', received, name, ['completed'], (job) => matches(this, job.result, result), what, (job) => ({ data: job.data, result: job.result }));
  },

  /**
   * A dead-lettered (failed) job of this name whose error matches: a string
   * (contained in the message), a RegExp (on the message), or an object
   * matched partially against { message, code, reason }.
   */
  toHaveFailedWith(this: SpoolMatcherContext, received: unknown, name: string, error: string | RegExp | { message?: unknown; code?: unknown; reason?: unknown }): Promise<SpoolMatcherResult> {
    const test = (job: Job): boolean => {
      const e = job.error;
      if (!e) return false;
      if (typeof error === 'string') return e.message.includes(error);
      if (error instanceof RegExp) return error.test(e.message);
      return matches(this, { message: e.message, code: e.code, reason: e.reason }, error);
    };
    const what = `a failed job "${name}" with error ${this.utils.printExpected(error)}`;
    return assertJob(this, 'toHaveFailedWith', received, name, ['failed'], test, what, (job) => ({ message: job.error?.message, code: job.error?.code, reason: job.error?.reason }));
  },
};

/** The matchers' signatures on `expect(queue)`; each returns a promise to await. */
export interface SpoolMatchers<R> {
  /** A job of this name in any state, whose data matches `data` partially. */
  toHaveJob(name: string, data?: unknown): Promise<R>;
  /** A completed job of this name, whose result matches `result` partially when given. */
  toHaveCompleted(name: string, result?: unknown): Promise<R>;
  /** A failed (dead-lettered) job of this name whose error message contains / matches, or whose { message, code, reason } matches. */
  toHaveFailedWith(name: string, error: string | RegExp | { message?: unknown; code?: unknown; reason?: unknown }): Promise<R>;
}

/*
 * Types for @types/jest's global expect(). Users of `import { expect } from
 * '@jest/globals'` add, in a .d.ts of their tests (the library cannot: the
 * augmentation fails to compile where the expect package is absent):
 *   declare module 'expect' {
 *     interface Matchers<R extends void | Promise<void>, T = unknown> extends SpoolMatchers<R> {}
 *   }
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // Augments @types/jest's expect(): the type parameters must match its declaration.
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unused-vars
    interface Matchers<R, T = {}> extends SpoolMatchers<R> {}
  }
}
