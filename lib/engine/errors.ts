/**
 * Every error Spool throws or records. Argument errors name the field and
 * the fix; job errors carry the `reason` recorded with a dead letter.
 */

import { InvalidArgumentError, SpoolError } from '../common/errors.js';
import { describe } from '../common/validation.js';

export { InvalidArgumentError, PeerMissingError, SpoolError, UnknownOptionError } from '../common/errors.js';

/** The payload is larger than the queue's `maxPayloadBytes`. Nothing was written. */
export class PayloadTooLargeError extends InvalidArgumentError {
  constructor(field: string, readonly bytes: number, readonly limit: number) {
    super(field, `is ${bytes} bytes encoded, over the limit of ${limit}`, 'store large payloads elsewhere and pass a reference, or raise maxPayloadBytes');
  }
}

/** add()/addBulk() would pass the queue's maxWaiting (or a group's maxWaitingPerGroup). Nothing was written. */
export class QueueFullError extends SpoolError {
  constructor(readonly queue: string, readonly limit: number, readonly group?: string) {
    super(
      group === undefined
        ? `queue "${queue}" is full: it holds its limit of ${limit} waiting jobs (maxWaiting); nothing was added`
        : `group "${group}" of queue "${queue}" is full: it holds its limit of ${limit} waiting jobs (maxWaitingPerGroup); nothing was added`,
    );
  }
}

/**
 * Throw it from a handler when a downstream service rate-limits you: the job
 * goes back to delayed for `retryAfter` ms without spending the attempt, and
 * the whole queue starts nothing new until then.
 */
export class RateLimitedError extends SpoolError {
  /** How long the queue waits, in ms. */
  readonly retryAfter: number;

  /**
   * `retryAfter`: ms to wait, or the Date to wait until (an HTTP Retry-After
   * date: `new Date(header)`); a date already past means no wait.
   */
  constructor(retryAfter: number | Date, message?: string) {
    const ms = retryAfter instanceof Date ? Math.max(0, retryAfter.getTime() - Date.now()) : retryAfter;
    super(message ?? `rate limited downstream; retrying after ${ms} ms`);
    if (!Number.isFinite(ms) || ms < 0) {
      throw new InvalidArgumentError(
        'RateLimitedError retryAfter',
        `must be a number of ms >= 0 or a valid Date, got ${describe(retryAfter)}`,
        'parse the Retry-After header as seconds (Number(h) * 1000) or as a date (new Date(h))',
      );
    }
    this.retryAfter = ms;
  }
}

/**
 * Throw it from a handler to run the job again later: it goes back to
 * delayed for `delay` ms (or until a Date) without spending the attempt,
 * and the queue's other jobs go on (RateLimitedError holds the whole queue).
 * A step job records how far it got with `job.updateData()` first.
 */
export class DelayedError extends SpoolError {
  /** How long the job waits, in ms. */
  readonly delay: number;

  /** `delay`: ms to wait, or the Date to wait until (a date already past: run again at once). */
  constructor(delay: number | Date, message?: string) {
    const ms = delay instanceof Date ? Math.max(0, delay.getTime() - Date.now()) : delay;
    super(message ?? `the handler asked to run the job again in ${ms} ms`);
    if (!Number.isSafeInteger(ms) || ms < 0) {
      throw new InvalidArgumentError(
        'DelayedError delay',
        `must be a whole number of ms >= 0 or a valid Date, got ${describe(delay)}`,
        'pass ms from now (60_000) or the time to run again (new Date(...))',
      );
    }
    this.delay = ms;
  }
}

/** Error classes whose jobs go straight to the dead letters, with this reason. */
export abstract class TerminalJobError extends SpoolError {
  abstract readonly reason: string;
}

/** Throw it from a handler to dead-letter the job at once, without further attempts. */
export class UnrecoverableError extends TerminalJobError {
  readonly reason: string = 'unrecoverable';
}

/** The job has no handler for its name. */
export class NoHandlerError extends TerminalJobError {
  readonly reason = 'no-handler';
  constructor(readonly jobName: string, queue: string) {
    super(`no handler for job name "${jobName}" in queue "${queue}"`);
  }
}

/** The job's deadline passed: it is not worth running any more. */
export class DeadlineExceededError extends TerminalJobError {
  readonly reason = 'deadline';
}

/** The payload failed validation (at the worker: stored before a schema change, or added without validation). */
export class JobValidationError extends TerminalJobError {
  readonly reason = 'validation';
  constructor(message: string, readonly constraints: readonly string[] = []) {
    super(message);
  }
}

/** The stored job cannot be decoded (broken JSON, missing fields). */
export class CorruptJobError extends TerminalJobError {
  readonly reason = 'corrupt';
}

/** The stored payload is larger than the worker's maxPayloadBytes: it is not parsed into memory or run. */
export class StoredPayloadTooLargeError extends TerminalJobError {
  readonly reason = 'payload-too-large';
  constructor(readonly bytes: number, readonly limit: number) {
    super(`the stored payload is ${bytes} bytes, over the worker's maxPayloadBytes (${limit}); it was not run. Raise Worker options.maxPayloadBytes or store large data elsewhere and pass a reference`);
  }
}

/** The handler returned something JSON cannot carry (BigInt, a cycle...). */
export class ResultSerializationError extends TerminalJobError {
  readonly reason = 'result';
}

/** The attempt ran past the job's `timeout`; it is retried while attempts remain. */
export class JobTimeoutError extends SpoolError {
  readonly reason = 'timeout';
  constructor(readonly timeout: number) {
    super(`the attempt ran past its timeout of ${timeout} ms`);
  }
}

/** The worker no longer holds the job's lease (reaped after expiry, or re-claimed). Nothing was written. */
export class LeaseLostError extends SpoolError {
  constructor(readonly jobId: string, what = 'the lease') {
    super(`${what} of job ${jobId} is no longer held by this worker; nothing was written`);
  }
}

/** The job was cancelled (job.signal's reason). */
export class JobCancelledError extends SpoolError {
  constructor(readonly jobId: string) {
    super(`job ${jobId} was cancelled`);
  }
}

/** The worker is shutting down and handed the job back (job.signal's reason). */
export class WorkerClosingError extends SpoolError {
  constructor(readonly jobId: string) {
    super(`the worker is shutting down; job ${jobId} was released for another worker`);
  }
}

/** A call on a closed Queue or Worker. */
export class ClosedError extends SpoolError {}

/**
 * A sandboxed handler's thread or process died while it ran the job (an
 * uncaught exception, process.exit, out of memory, a crash in native code):
 * this attempt failed and is retried as the job's options say; the pool
 * starts a fresh sandbox for the next job.
 */
export class SandboxCrashedError extends SpoolError {
  readonly reason = 'sandbox-crashed';
}

/**
 * Why a store refuses `{ tx }`: `store`, it cannot write in a database
 * transaction at all (a Redis store without an outbox); `flow-outbox`, a
 * Redis store's outbox takes add() and addBulk() but not flows; `sharded`, a
 * queue with option `shards` (its jobs spread over several Redis queues).
 */
export type TransactionalRefusal = 'store' | 'flow-outbox' | 'sharded';

const REFUSALS: Readonly<Record<TransactionalRefusal, readonly [string, string]>> = {
  store: [
    'its store does not write in your database transaction',
    'use a PostgresStore on the same database as your transaction (spool/postgres), give the RedisStore an outbox (spool/outbox), or add the job after your transaction commits',
  ],
  'flow-outbox': [
    "a Redis store's outbox takes add() and addBulk() in your transaction, not flows",
    'add the flow after your transaction commits, or use a PostgresStore (spool/postgres), where a flow commits with your rows',
  ],
  sharded: [
    'the queue is sharded (option shards), and an outbox row names one queue',
    'use a queue without shards for adds in your transaction, or add the job after your transaction commits',
  ],
};

/**
 * `{ tx }` (transactional enqueue) was given to a queue or flow producer whose
 * store cannot write it in the caller's database transaction; `refusal` says
 * why, the message names the fix. Nothing was written.
 */
export class TransactionalEnqueueUnsupportedError extends InvalidArgumentError {
  constructor(field: string, queue: string, readonly refusal: TransactionalRefusal = 'store') {
    const [why, fix] = REFUSALS[refusal];
    super(field, `cannot be used on queue "${queue}": ${why}`, fix);
  }
}
