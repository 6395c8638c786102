import type { SpoolLogger } from '../logger.js';
import type { Failure, JobState } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import type { Job } from './job.js';
import { assertKnownKeys, assertPlainObject, describe } from './options.js';

/** A level of SpoolLogger. */
export type LogLevel = 'error' | 'warn' | 'log' | 'debug';

/** The level of the line a failed attempt logs, or false for none. */
export interface FailureLogLevels {
  /** A dead letter (no attempt left, or a terminal error). Default 'warn'. */
  readonly dead?: LogLevel | false;
  /** A failed attempt that will be retried, or a stalled job back in waiting. Default 'debug'. */
  readonly retry?: LogLevel | false;
}

export type ResolvedFailureLog = { readonly dead: LogLevel | false; readonly retry: LogLevel | false };

const LEVELS: readonly (LogLevel | false)[] = ['error', 'warn', 'log', 'debug', false];
const DEFAULT: ResolvedFailureLog = { dead: 'warn', retry: 'debug' };
const OFF: ResolvedFailureLog = { dead: false, retry: false };

function level(value: unknown, field: string, fallback: LogLevel | false): LogLevel | false {
  if (value === undefined) return fallback;
  if (!LEVELS.includes(value as LogLevel)) {
    throw new InvalidArgumentError(field, `must be 'error', 'warn', 'log', 'debug' or false, got ${describe(value)}`);
  }
  return value as LogLevel | false;
}

/** Worker option `logFailures`: true (the default levels), false (nothing), or levels per kind. */
export function resolveFailureLog(value: unknown, field: string): ResolvedFailureLog {
  if (value === undefined || value === true) return DEFAULT;
  if (value === false) return OFF;
  assertPlainObject(value, field);
  assertKnownKeys(value, ['dead', 'retry'], field);
  return { dead: level(value.dead, `${field}.dead`, DEFAULT.dead), retry: level(value.retry, `${field}.retry`, DEFAULT.retry) };
}

function write(logger: SpoolLogger, at: LogLevel, message: string): void {
  if (at === 'error') logger.error(message);
  else if (at === 'warn') logger.warn(message);
  else if (at === 'log') logger.log(message);
  else logger.debug?.(message);
}

/**
 * One line per failed attempt, with what a person needs to act on it:
 * queue, job name, id, attempts, reason and the error message (no stack:
 * the job record keeps it, see queue.getJob(id).error).
 */
export function logFailure(logger: SpoolLogger, levels: ResolvedFailureLog, queue: string, job: Job, failure: Failure, dead: boolean): void {
  const at = dead ? levels.dead : levels.retry;
  if (at === false) return;
  const what = `job "${job.name}" ${job.id} of queue "${queue}"`;
  const attempts = `attempt ${job.attempt} of ${job.maxAttempts}`;
  const message = dead
    ? `${what} dead-lettered after ${attempts} (reason: ${failure.reason}): ${failure.message}`
    : `${what} failed ${attempts} (reason: ${failure.reason}); retrying in ${duration(failure.retryDelay)}: ${failure.message}`;
  write(logger, at, message);
}

/**
 * The reaper took back a job whose lease expired (its worker died, or
 * blocked its event loop past lockDuration): dead-lettered with reason
 * stalled once it stalled more than maxStalledCount times (the dead level),
 * else back in waiting, or cancelled when a cancel was pending (the retry
 * level). The job's name is not in the reaper's reply: the id finds it
 * (queue.getJob).
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
  write(logger, at, message);
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
