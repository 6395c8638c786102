import type { Backoff } from './backoff.js';
import { KEEP_ALL } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import { assertKnownKeys, assertPlainObject, describe, nonNegativeNumber, positiveInteger } from '../common/validation.js';
import { NUMBERED_ID } from './ids.js';
import { JOB_HINTS, RETENTION_HINTS } from '../common/option-hints.js';

export { assertKnownKeys, assertPlainObject, checkOptions, describe, nonNegativeNumber, positiveInteger } from '../common/validation.js';

/**
 * What a finished job leaves behind: true removes it, n keeps the newest n,
 * age (seconds) drops older ones, false keeps all. Default: DEFAULT_RETENTION.
 */
export type Retention = boolean | number | { readonly count?: number; readonly age?: number };

/** Options of one job. Every field is optional; the queue's defaultJobOptions fill the gaps. */
export interface JobOptions {
  /** Your id for the job: adding an id that exists returns the existing job instead of a second one. */
  readonly jobId?: string;
  /** Run no sooner than this many ms from now. */
  readonly delay?: number;
  /** Run no sooner than this time (Date or epoch ms). Exclusive with delay. */
  readonly runAt?: Date | number;
  /** 0 (default) runs first, up to 1,048,575; FIFO within a priority. */
  readonly priority?: number;
  /** Newest first within its priority. */
  readonly lifo?: boolean;
  /** Attempts in all, the first included. Default 1. */
  readonly attempts?: number;
  /** Spacing of retries: ms (fixed), an exponential/fixed policy, or { type: 'custom' } for the worker's backoffStrategy. */
  readonly backoff?: number | Backoff;
  /** After this time (Date or epoch ms) the job is dead-lettered instead of started or retried. */
  readonly deadline?: Date | number;
  /** ms one attempt may run; past it job.signal aborts and the attempt fails with JobTimeoutError. */
  readonly timeout?: number;
  /** At most one job per key: within ttl ms, or until that job finishes when ttl is omitted. */
  readonly dedup?: { readonly key: string; readonly ttl?: number };
  readonly removeOnComplete?: Retention;
  readonly removeOnFail?: Retention;
  /** The group (tenant) the job belongs to: groups are served round-robin, each under its own caps. */
  readonly group?: { readonly id: string };
  /**
   * The business identity of the job's side effects, e.g. `invoice-email:t1:inv987:v3`.
   * job.once(step, effect) records each step as done under it, so a job
   * delivered again (after a crash) or re-added with the same key skips them.
   * Default: the job id.
   */
  readonly idempotencyKey?: string;
}

/** Every job option (the QueueModule checks defaultJobOptions against it too). */
export const JOB_OPTION_KEYS: readonly (keyof JobOptions)[] = [
  'jobId',
  'delay',
  'runAt',
  'priority',
  'lifo',
  'attempts',
  'backoff',
  'deadline',
  'timeout',
  'dedup',
  'removeOnComplete',
  'removeOnFail',
  'group',
  'idempotencyKey',
];

export const MAX_PRIORITY = 1_048_575;

/** Options checked and reduced to what is stored; times are epoch ms. */
export interface NormalizedJobOptions {
  readonly jobId?: string;
  readonly delay: number;
  readonly priority: number;
  readonly lifo: boolean;
  readonly attempts: number;
  readonly backoff?: Backoff;
  readonly deadline: number;
  readonly timeout?: number;
  readonly dedup?: { readonly key: string; readonly ttl: number };
  readonly removeOnComplete: string;
  readonly removeOnFail: string;
  readonly group?: string;
  readonly idempotencyKey?: string;
}

/** The part of the options that travels with the job as JSON, for the worker and for snapshots. */
export interface StoredJobOptions {
  readonly attempts: number;
  readonly backoff?: Backoff;
  readonly timeout?: number;
  readonly priority?: number;
  readonly lifo?: boolean;
  readonly deadline?: number;
  readonly dedup?: { readonly key: string; readonly ttl: number };
  readonly group?: { readonly id: string };
  readonly idempotencyKey?: string;
}

/**
 * The options JSON stored with a job: only what is set. attempts is not in
 * it (the job hash keeps maxAttempts; Job.opts.attempts is read from there),
 * so a plain job stores '{}', which add.lua does not write at all.
 */
export function storedOptions(o: NormalizedJobOptions): Omit<StoredJobOptions, 'attempts'> {
  return {
    ...(o.backoff && { backoff: o.backoff }),
    ...(o.timeout !== undefined && { timeout: o.timeout }),
    ...(o.priority && { priority: o.priority }),
    ...(o.lifo && { lifo: true }),
    ...(o.deadline && { deadline: o.deadline }),
    ...(o.dedup && { dedup: o.dedup }),
    ...(o.group !== undefined && { group: { id: o.group } }),
    ...(o.idempotencyKey !== undefined && { idempotencyKey: o.idempotencyKey }),
  };
}

function epochMs(value: unknown, field: string): number {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new InvalidArgumentError(field, 'is an invalid Date');
    return value.getTime();
  }
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  throw new InvalidArgumentError(field, `must be a Date or epoch milliseconds, got ${describe(value)}`);
}

/**
 * What a finished job leaves behind when its options say nothing. Bounded,
 * so a queue's memory does not grow with its history:
 * - completed: the newest 1,000, none older than a day: enough to look at
 *   recent results and debug today's runs; results you need longer belong
 *   in your database;
 * - failed (dead letters): the newest 10,000, none older than 30 days, like
 *   a dead set: they wait for a person, so they are kept long enough to
 *   survive a weekend, an alert nobody saw and a fix being deployed, and
 *   the count keeps a flood of failures from filling Redis.
 * `false` keeps every job for ever, as before.
 */
export const DEFAULT_RETENTION = {
  completed: { count: 1_000, age: 24 * 3600 },
  failed: { count: 10_000, age: 30 * 24 * 3600 },
} as const;

function retention(value: unknown, field: string, fallback: { readonly count: number; readonly age: number }): string {
  if (value === undefined) return `${fallback.count},${fallback.age * 1000}`;
  if (value === false) return KEEP_ALL;
  if (value === true) return '0,-1';
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0) throw new InvalidArgumentError(field, `must be true, a count >= 0 or { count, age }, got ${describe(value)}`);
    return `${value},-1`;
  }
  assertPlainObject(value, field);
  assertKnownKeys(value, ['count', 'age'], field, RETENTION_HINTS);
  const count = value.count === undefined ? -1 : nonNegativeNumber(value.count, `${field}.count`, 'jobs');
  const age = value.age === undefined ? -1 : nonNegativeNumber(value.age, `${field}.age`, 'seconds') * 1000;
  return `${Math.floor(count)},${Math.floor(age)}`;
}

function backoff(value: unknown, field: string): Backoff | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return { type: 'fixed', delay: nonNegativeNumber(value, field) };
  if (typeof value === 'function') {
    throw new InvalidArgumentError(field, 'is a function, which cannot be stored with the job', "pass it as the Worker option backoffStrategy and use backoff: { type: 'custom' }");
  }
  assertPlainObject(value, field);
  if (value.type === 'custom') {
    assertKnownKeys(value, ['type'], field);
    return { type: 'custom' };
  }
  if (value.type !== 'fixed' && value.type !== 'exponential') {
    throw new InvalidArgumentError(`${field}.type`, `must be 'fixed', 'exponential' or 'custom', got ${describe(value.type)}`);
  }
  assertKnownKeys(value, ['type', 'delay', 'jitter', 'maxDelay'], field);
  const jitter = value.jitter === undefined ? undefined : nonNegativeNumber(value.jitter, `${field}.jitter`, 'fraction');
  if (jitter !== undefined && jitter > 1) throw new InvalidArgumentError(`${field}.jitter`, `is ${jitter}: it must be between 0 and 1`);
  return {
    type: value.type,
    delay: nonNegativeNumber(value.delay, `${field}.delay`),
    ...(jitter !== undefined && { jitter }),
    ...(value.maxDelay !== undefined && { maxDelay: nonNegativeNumber(value.maxDelay, `${field}.maxDelay`) }),
  };
}

export function validateJobId(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 256) {
    throw new InvalidArgumentError(field, `must be a string of 1 to 256 characters, got ${describe(value)}`);
  }
  if (NUMBERED_ID.test(value)) {
    // lib/engine/ids: the queue numbers the jobs added without a jobId; a custom id of that form could name one of them.
    throw new InvalidArgumentError(field, `is a decimal number (${value}): those are the ids the queue gives jobs added without one`, `give it a prefix, e.g. 'order:${value}'`);
  }
  return value;
}

/**
 * Checks job options (defaults merged under them) and reduces them to what is
 * stored. Throws InvalidArgumentError naming the field; nothing is written.
 */
export function normalizeJobOptions(
  opts: JobOptions | undefined,
  defaults: JobOptions | undefined,
  field = 'opts',
  now: number = Date.now(),
): NormalizedJobOptions {
  if (opts !== undefined) assertPlainObject(opts, field);
  if (opts) assertKnownKeys(opts, JOB_OPTION_KEYS, field, JOB_HINTS);
  const o: Record<string, unknown> = { ...defaults, ...opts };

  // A job's own delay/runAt replaces the defaults' timing as a whole.
  const timing: JobOptions = opts && (opts.delay !== undefined || opts.runAt !== undefined) ? opts : (defaults ?? {});
  if (timing.delay !== undefined && timing.runAt !== undefined) {
    throw new InvalidArgumentError(`${field}.runAt`, 'and delay were both given', 'pass one of them');
  }
  let delay = 0;
  if (timing.runAt !== undefined) delay = Math.max(0, epochMs(timing.runAt, `${field}.runAt`) - now);
  else if (timing.delay !== undefined) delay = nonNegativeNumber(timing.delay, `${field}.delay`);

  let priority = 0;
  if (o.priority !== undefined) {
    if (typeof o.priority !== 'number' || !Number.isInteger(o.priority) || o.priority < 0 || o.priority > MAX_PRIORITY) {
      throw new InvalidArgumentError(`${field}.priority`, `must be an integer from 0 (first) to ${MAX_PRIORITY}, got ${describe(o.priority)}`);
    }
    priority = o.priority;
  }
  if (o.lifo !== undefined && typeof o.lifo !== 'boolean') {
    throw new InvalidArgumentError(`${field}.lifo`, `must be a boolean, got ${describe(o.lifo)}`);
  }

  let dedup: NormalizedJobOptions['dedup'];
  if (o.dedup !== undefined) {
    assertPlainObject(o.dedup, `${field}.dedup`);
    assertKnownKeys(o.dedup, ['key', 'ttl'], `${field}.dedup`);
    if (typeof o.dedup.key !== 'string' || o.dedup.key.length === 0 || o.dedup.key.length > 256) {
      throw new InvalidArgumentError(`${field}.dedup.key`, `must be a string of 1 to 256 characters, got ${describe(o.dedup.key)}`);
    }
    const ttl = o.dedup.ttl === undefined ? 0 : nonNegativeNumber(o.dedup.ttl, `${field}.dedup.ttl`);
    if (o.dedup.ttl !== undefined && ttl < 1) {
      throw new InvalidArgumentError(`${field}.dedup.ttl`, 'must be at least 1 ms', 'omit ttl to deduplicate until the job finishes');
    }
    dedup = { key: o.dedup.key, ttl: Math.ceil(ttl) };
  }

  return {
    ...(o.jobId !== undefined && { jobId: validateJobId(o.jobId, `${field}.jobId`) }),
    delay: Math.ceil(delay),
    priority,
    lifo: o.lifo === true,
    attempts: o.attempts === undefined ? 1 : positiveInteger(o.attempts, `${field}.attempts`, 1_000_000),
    backoff: backoff(o.backoff, `${field}.backoff`),
    deadline: o.deadline === undefined ? 0 : epochMs(o.deadline, `${field}.deadline`),
    timeout: o.timeout === undefined ? undefined : positiveInteger(o.timeout, `${field}.timeout`),
    dedup,
    removeOnComplete: retention(o.removeOnComplete, `${field}.removeOnComplete`, DEFAULT_RETENTION.completed),
    removeOnFail: retention(o.removeOnFail, `${field}.removeOnFail`, DEFAULT_RETENTION.failed),
    ...(o.group !== undefined && { group: groupId(o.group, `${field}.group`) }),
    ...(o.idempotencyKey !== undefined && { idempotencyKey: idempotencyKey(o.idempotencyKey, `${field}.idempotencyKey`) }),
  };
}

function idempotencyKey(value: unknown, field: string): string {
  if (typeof value !== 'string' || !/^[^\s\p{Cc}{}]{1,256}$/u.test(value)) {
    throw new InvalidArgumentError(field, `must be 1 to 256 characters without spaces, braces or control characters, got ${describe(value)}`, 'use a business identity such as "invoice-email:tenant1:inv987"');
  }
  return value;
}

function groupId(value: unknown, field: string): string {
  assertPlainObject(value, field);
  assertKnownKeys(value, ['id'], field);
  if (typeof value.id !== 'string' || !/^[^\s\p{Cc}]{1,256}$/u.test(value.id)) {
    throw new InvalidArgumentError(`${field}.id`, `must be 1 to 256 characters without spaces or control characters, got ${describe(value.id)}`);
  }
  return value.id;
}
