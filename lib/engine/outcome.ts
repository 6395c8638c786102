import type { Failure } from '../store/store.js';
import { decideRetry, type BackoffStrategy } from './backoff.js';
import { ResultSerializationError } from './errors.js';
import type { Job } from './job.js';
import { errorCode } from './to-error.js';

/** A handler's result as stored JSON; undefined is stored as null. */
export function encodeResult(value: unknown): { readonly ok: true; readonly json: string } | { readonly ok: false; readonly error: Error } {
  try {
    return { ok: true, json: JSON.stringify(value === undefined ? null : value) ?? 'null' };
  } catch (err) {
    return { ok: false, error: new ResultSerializationError(`the handler's result cannot be stored as JSON: ${(err as Error).message}`) };
  }
}

/** What a failed attempt writes: retry delay (or dead letter), reason and the error. */
export function failureOf(job: Job, error: Error, strategy: BackoffStrategy | undefined): Failure {
  const decision = decideRetry({
    error,
    attempt: job.attempt,
    maxAttempts: job.maxAttempts,
    backoff: job.opts.backoff,
    strategy,
    jobName: job.name,
  });
  return {
    retryDelay: decision.delay,
    reason: decision.reason,
    message: error.message,
    stack: error.stack ?? '',
    code: errorCode(error),
  };
}
