/**
 * Every error Spool throws or records. Argument errors name the field and
 * the fix; job errors carry the `reason` recorded with a dead letter.
 */

import { InvalidArgumentError, SpoolError } from '../common/errors.js';
import { describe } from '../common/validation.js';

export { InvalidArgumentError, PeerMissingError, SpoolError, UnknownOptionError } from '../common/errors.js';

/**
 * The payload is larger than the queue's `maxPayloadBytes`. Nothing was written.
 *
 * Do: store the large part elsewhere (object storage, a table) and pass a
 * reference in the payload, or raise the Queue's `maxPayloadBytes`.
 */
export class PayloadTooLargeError extends InvalidArgumentError {
  constructor(field: string, readonly bytes: number, readonly limit: number) {
    super(field, `is ${bytes} bytes encoded, over the limit of ${limit}`, 'store large payloads elsewhere and pass a reference, or raise maxPayloadBytes');
  }
}

/**
 * add()/addBulk() would pass the queue's maxWaiting (or a group's maxWaitingPerGroup). Nothing was written.
 *
 * Do: add again later, once workers have drained the queue (over HTTP the
 * filter answers with a Retry-After), or raise `maxWaiting` / `maxWaitingPerGroup`.
 */
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
 * A handler reported that a downstream service rate-limits it: the job goes
 * back to delayed for `retryAfter` ms without spending the attempt, and the
 * whole queue starts nothing new until then.
 *
 * Do: throw `new RateLimitedError(ms or Date)` from the handler (the
 * downstream's Retry-After); to hold back this one job only, throw DelayedError.
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
 * A handler asked to run its job again later: the job goes back to delayed
 * for `delay` ms (or until a Date) without spending the attempt, and the
 * queue's other jobs go on (RateLimitedError holds the whole queue).
 *
 * Do: throw `new DelayedError(ms or Date)` from the handler; a step job
 * records how far it got with `job.updateData()` first.
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

/**
 * Base class of the errors whose jobs go straight to the dead letters, with this `reason`.
 *
 * Do: catch the family with `instanceof TerminalJobError`; to dead-letter a
 * job from a handler, throw UnrecoverableError.
 */
export abstract class TerminalJobError extends SpoolError {
  abstract readonly reason: string;
}

/**
 * A handler gave up on its job: it is dead-lettered at once (reason
 * `unrecoverable`), without further attempts.
 *
 * Do: throw it from a handler for input no retry can fix; once the cause is
 * fixed, redrive the dead letter (`queue.redrive(id)`, `spool redrive`).
 */
export class UnrecoverableError extends TerminalJobError {
  readonly reason: string = 'unrecoverable';
}

/**
 * The job has no handler for its name: it was dead-lettered (reason `no-handler`).
 *
 * Do: add a handler for the name (`@OnJob('<name>')`, or a fallback
 * `@OnJob()`) to a processor of the queue, then redrive the dead letters
 * (`spool redrive <queue> --all --reason no-handler`).
 */
export class NoHandlerError extends TerminalJobError {
  readonly reason = 'no-handler';
  constructor(readonly jobName: string, queue: string) {
    super(`no handler for job name "${jobName}" in queue "${queue}"`);
  }
}

/**
 * The job's `deadline` passed before or while it ran: it is dead-lettered
 * (reason `deadline`), as it is not worth running any more.
 *
 * Do: nothing for this job; if deadlines are missed often, add workers or
 * concurrency, or give later deadlines when adding.
 */
export class DeadlineExceededError extends TerminalJobError {
  readonly reason = 'deadline';
}

/**
 * The payload failed validation at the worker (stored before a schema
 * change, or added without validation): dead-lettered (reason `validation`).
 *
 * Do: read `constraints`; fix the producer (validate at add time) and add the
 * job again, or redrive the dead letter if the schema was what was wrong.
 */
export class JobValidationError extends TerminalJobError {
  readonly reason = 'validation';
  constructor(message: string, readonly constraints: readonly string[] = []) {
    super(message);
  }
}

/**
 * The stored job cannot be decoded (broken JSON, missing fields): it is
 * dead-lettered (reason `corrupt`) without running.
 *
 * Do: look at it (`spool show <queue> <id>`; `job.corruption` names the
 * fields) and at what wrote it (another writer, a hand edit in Redis); remove
 * it, and add it again if it should run. Redriving it fails the same way.
 */
export class CorruptJobError extends TerminalJobError {
  readonly reason = 'corrupt';
}

/**
 * The stored payload is larger than the worker's maxPayloadBytes: it is not
 * parsed into memory or run, but dead-lettered (reason `payload-too-large`).
 *
 * Do: raise the Worker's `maxPayloadBytes` to the producer's and redrive the
 * job, or keep large data out of payloads.
 */
export class StoredPayloadTooLargeError extends TerminalJobError {
  readonly reason = 'payload-too-large';
  constructor(readonly bytes: number, readonly limit: number) {
    super(`the stored payload is ${bytes} bytes, over the worker's maxPayloadBytes (${limit}); it was not run. Raise Worker options.maxPayloadBytes or store large data elsewhere and pass a reference`);
  }
}

/**
 * The handler returned something JSON cannot carry (BigInt, a cycle...): the
 * job is dead-lettered (reason `result`) although its work ran.
 *
 * Do: return plain JSON (a BigInt as a string, no cycles); redrive the job
 * only if running its work again is safe.
 */
export class ResultSerializationError extends TerminalJobError {
  readonly reason = 'result';
}

/**
 * The attempt ran past the job's `timeout` (job.signal aborts with it); it is
 * retried while attempts remain.
 *
 * Do: stop the work when `job.signal` aborts so a late attempt writes nothing
 * half-done; raise the job's `timeout` if attempts need longer.
 */
export class JobTimeoutError extends SpoolError {
  readonly reason = 'timeout';
  constructor(readonly timeout: number) {
    super(`the attempt ran past its timeout of ${timeout} ms`);
  }
}

/**
 * The worker no longer holds the job's lease (reaped after expiry, or
 * re-claimed). Nothing was written; another delivery runs the job.
 *
 * Do: keep handlers idempotent (delivery is at-least-once); if it happens
 * often, raise the Worker's `lockDuration` or find what blocks the event loop.
 */
export class LeaseLostError extends SpoolError {
  constructor(readonly jobId: string, what = 'the lease') {
    super(`${what} of job ${jobId} is no longer held by this worker; nothing was written`);
  }
}

/**
 * The job was cancelled: job.signal's reason in its handler, and what
 * `waitUntilFinished()` / `queue.waitFor()` reject with.
 *
 * Do: in a handler, stop the work when `job.signal` aborts. To run the job
 * after all, add it again under a new jobId (the same jobId returns the
 * cancelled job until it is removed).
 */
export class JobCancelledError extends SpoolError {
  constructor(readonly jobId: string) {
    super(`job ${jobId} was cancelled`);
  }
}

/**
 * The worker is shutting down and handed the job back (job.signal's reason):
 * it goes back to waiting without spending an attempt.
 *
 * Do: stop the work when `job.signal` aborts; another worker runs the job
 * again, so keep handlers idempotent. Raise `shutdownTimeout` to let jobs finish.
 */
export class WorkerClosingError extends SpoolError {
  constructor(readonly jobId: string) {
    super(`the worker is shutting down; job ${jobId} was released for another worker`);
  }
}

/**
 * A call on a closed Queue, FlowProducer or sandbox pool, or a Job method on
 * a Job not read through a Queue, Worker or FlowProducer.
 *
 * Do: make calls before close() (in Nest: before `app.close()`), or open a
 * new Queue; read jobs with `queue.getJob(id)` instead of building them.
 */
export class ClosedError extends SpoolError {}

/**
 * A sandboxed handler's thread or process died while it ran the job (an
 * uncaught exception, process.exit, out of memory, a crash in native code):
 * this attempt failed and is retried as the job's options say; the pool
 * starts a fresh sandbox for the next job.
 *
 * Do: read the message for how the sandbox died and fix the handler module,
 * or raise the memory limit in the Worker's `sandbox` options.
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
 *
 * Do: what the message says for its `refusal`: give the RedisStore `outbox:
 * new Outbox(...)` (spool/outbox) and run an OutboxRelay, or use a
 * PostgresStore on your transaction's database; or add after your
 * transaction commits.
 */
export class TransactionalEnqueueUnsupportedError extends InvalidArgumentError {
  constructor(field: string, queue: string, readonly refusal: TransactionalRefusal = 'store') {
    const [why, fix] = REFUSALS[refusal];
    super(field, `cannot be used on queue "${queue}": ${why}`, fix);
  }
}
