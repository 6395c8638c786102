import { TerminalJobError } from './errors.js';

/** Built-in spacing of retries. `delay` is the first wait in ms. */
export interface BackoffOptions {
  readonly type: 'fixed' | 'exponential';
  readonly delay: number;
  /** 0..1: share of each wait drawn at random (1 = full jitter: uniform in [0, wait]). Default 0. */
  readonly jitter?: number;
  /** Upper bound of any wait, before jitter. */
  readonly maxDelay?: number;
}

/** Retries spaced by the worker's `backoffStrategy` (functions cannot travel with the job). */
export interface CustomBackoff {
  readonly type: 'custom';
}

/** How a job's retries are spaced: fixed or exponential (`BackoffOptions`), or the worker's own `backoffStrategy` (`CustomBackoff`). */
export type Backoff = BackoffOptions | CustomBackoff;

/** A worker's custom spacing: ms to wait before attempt `attempt + 1`; -1 or undefined stops retrying. */
export type BackoffStrategy = (attempt: number, error: Error, jobName: string) => number | undefined;

/**
 * Wait before the next attempt, given the attempt that just failed (1-based).
 * Exponential: delay * 2^(attempt-1), capped by maxDelay, then jittered.
 * `random` is injectable so the bounds are testable.
 */
export function backoffDelay(backoff: BackoffOptions, attempt: number, random: () => number = Math.random): number {
  const raw = backoff.type === 'fixed' ? backoff.delay : backoff.delay * 2 ** Math.max(0, attempt - 1);
  const capped = backoff.maxDelay === undefined ? raw : Math.min(raw, backoff.maxDelay);
  const jitter = backoff.jitter ?? 0;
  return Math.round(capped * (1 - jitter * random()));
}

/** What `decideRetry()` decided for a failed attempt: when to retry, or the reason to dead-letter it. */
export interface RetryDecision {
  /** ms until the retry, or -1 for the dead letters. */
  readonly delay: number;
  /** Reason recorded when the job is dead-lettered. */
  readonly reason: string;
}

/**
 * Retry or dead-letter, as a pure function. Terminal errors (unrecoverable,
 * validation, deadline, no handler...) dead-letter at once; others retry while
 * attempts remain, spaced by the backoff.
 */
export function decideRetry(input: {
  readonly error: Error;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly backoff?: Backoff;
  readonly strategy?: BackoffStrategy;
  readonly jobName: string;
  readonly random?: () => number;
}): RetryDecision {
  const { error, attempt, maxAttempts, backoff } = input;
  if (error instanceof TerminalJobError) return { delay: -1, reason: error.reason };
  const own = (error as { reason?: unknown }).reason;
  const reason = typeof own === 'string' ? own : 'error';
  if (attempt >= maxAttempts) return { delay: -1, reason };
  if (!backoff) return { delay: 0, reason };
  if (backoff.type === 'custom') {
    if (!input.strategy) return { delay: 0, reason };
    const custom = input.strategy(attempt, error, input.jobName);
    if (custom === undefined || custom < 0 || !Number.isFinite(custom)) return { delay: -1, reason };
    return { delay: Math.round(custom), reason };
  }
  return { delay: backoffDelay(backoff, attempt, input.random), reason };
}
