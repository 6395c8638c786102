import type { SpoolLogger } from '../logger.js';
import type { Failure, JobState } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import type { Job } from './job.js';
import { lineBudget, type LineKind, type LogLevel } from './log-budget.js';
import { assertKnownKeys, assertPlainObject, describe, positiveInteger } from './options.js';

export type { LogLevel } from './log-budget.js';

/** The level of the line a failed attempt logs, or false for none, and how many such lines per interval. */
export interface FailureLogLevels {
  /** A dead letter (no attempt left, or a terminal error). Default 'warn'. */
  readonly dead?: LogLevel | false;
  /** A failed attempt that will be retried, or a stalled job back in waiting. Default 'debug'. */
  readonly retry?: LogLevel | false;
  /**
   * Lines per queue, kind (dead or retry) and reason in each `interval`; the
   * rest are counted into one summary line when the interval ends
   * ("+9,812 more dead letters on queue "emails" (reason error) in the last 30 s"). Default 10.
   */
  readonly linesPerInterval?: number;
  /** ms. Default 30,000. */
  readonly interval?: number;
}

export type ResolvedFailureLog = {
  readonly dead: LogLevel | false;
  readonly retry: LogLevel | false;
  readonly linesPerInterval: number;
  readonly interval: number;
};

const LEVELS: readonly (LogLevel | false)[] = ['error', 'warn', 'log', 'debug', false];
const DEFAULT: ResolvedFailureLog = { dead: 'warn', retry: 'debug', linesPerInterval: 10, interval: 30_000 };
const OFF: ResolvedFailureLog = { ...DEFAULT, dead: false, retry: false };

function level(value: unknown, field: string, fallback: LogLevel | false): LogLevel | false {
  if (value === undefined) return fallback;
  if (!LEVELS.includes(value as LogLevel)) {
    throw new InvalidArgumentError(field, `must be 'error', 'warn', 'log', 'debug' or false, got ${describe(value)}`);
  }
  return value as LogLevel | false;
}

/** Worker option `logFailures`: true (the default levels), false (nothing), or levels per kind and the lines per interval. */
export function resolveFailureLog(value: unknown, field: string): ResolvedFailureLog {
  if (value === undefined || value === true) return DEFAULT;
  if (value === false) return OFF;
  assertPlainObject(value, field);
  assertKnownKeys(value, ['dead', 'retry', 'linesPerInterval', 'interval'], field);
  return {
    dead: level(value.dead, `${field}.dead`, DEFAULT.dead),
    retry: level(value.retry, `${field}.retry`, DEFAULT.retry),
    linesPerInterval: value.linesPerInterval === undefined ? DEFAULT.linesPerInterval : positiveInteger(value.linesPerInterval, `${field}.linesPerInterval`),
    interval: value.interval === undefined ? DEFAULT.interval : positiveInteger(value.interval, `${field}.interval`),
  };
}

/** Dead letters and retries of one queue and reason share a budget of lines (log-budget.ts). */
function kind(levels: ResolvedFailureLog, at: LogLevel, dead: boolean, queue: string, reason: string): LineKind {
  const what = dead ? 'dead letters' : 'retries';
  return {
    key: `${dead ? 'dead' : 'retry'}\n${queue}\n${reason}`,
    lines: levels.linesPerInterval,
    intervalMs: levels.interval,
    level: at,
    summary: (held, seconds) => `+${held.toLocaleString('en-US')} more ${what} on queue "${queue}" (reason ${reason}) in the last ${seconds}`,
  };
}

/** Writes the summaries of `queue`'s held failure lines now (its worker is closing). */
export function flushFailureLog(logger: SpoolLogger, queue: string): void {
  lineBudget(logger).flush((key) => key.split('\n')[1] === queue);
}

/**
 * One line per failed attempt, with what a person needs to act on it:
 * queue, job name, id, attempts, reason and the error message (no stack:
 * the job record keeps it, see queue.getJob(id).error); past the lines per
 * interval of its queue and reason, a count in the summary line instead.
 */
export function logFailure(logger: SpoolLogger, levels: ResolvedFailureLog, queue: string, job: Job, failure: Failure, dead: boolean): void {
  const at = dead ? levels.dead : levels.retry;
  if (at === false) return;
  const what = `job "${job.name}" ${job.id} of queue "${queue}"`;
  const attempts = `attempt ${job.attempt} of ${job.maxAttempts}`;
  const message = dead
    ? `${what} dead-lettered after ${attempts} (reason: ${failure.reason}): ${failure.message}`
    : `${what} failed ${attempts} (reason: ${failure.reason}); retrying in ${duration(failure.retryDelay)}: ${failure.message}`;
  lineBudget(logger).write(kind(levels, at, dead, queue, failure.reason), message);
}

/**
 * The reaper took back a job whose lease expired (its worker died, or
 * blocked its event loop past lockDuration): dead-lettered with reason
 * stalled once it stalled more than maxStalledCount times (the dead level),
 * else back in waiting, or cancelled when a cancel was pending (the retry
 * level). The job's name is not in the reaper's reply: the id finds it
 * (queue.getJob). Counted like failures, under reason stalled.
 */
export function logStalled(logger: SpoolLogger, levels: ResolvedFailureLog, queue: string, id: string, state: JobState, maxStalled: number): void {
  const dead = state === 'failed';
  const at = dead ? levels.dead : levels.retry;
  if (at === false) return;
  const what = `job ${id} of queue "${queue}"`;
  const lost = 'a worker died or blocked past its lease';
  let message: string;
  if (dead) message = `${what} dead-lettered (reason: stalled): its lease expired more than maxStalledCount (${maxStalled}) times; ${lost}`;
  else if (state === 'cancelled') message = `${what} stalled with a cancel pending and is cancelled (${lost})`;
  else message = `${what} stalled (${lost}) and is ${state} again`;
  lineBudget(logger).write(kind(levels, at, dead, queue, 'stalled'), message);
}

/** 7100 -> "7.1 s", 10000 -> "10 s". */
export function seconds(ms: number): string {
  const s = ms / 1000;
  return `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
}

/** 20 -> "20 ms", 7100 -> "7.1 s". */
export function duration(ms: number): string {
  return ms < 1000 ? `${Math.max(0, Math.round(ms))} ms` : seconds(ms);
}

export function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
