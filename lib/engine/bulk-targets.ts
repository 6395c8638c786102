import type { PageIndex } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import type { Job } from './job.js';
import { assertKnownKeys, assertPlainObject, describe } from './options.js';

/**
 * Why a dead letter died. `error`: the handler threw and no attempt was left;
 * the others name the cause; a custom error class may record its own reason.
 */
export type DeadLetterReason =
  | 'error'
  | 'stalled'
  | 'unrecoverable'
  | 'deadline'
  | 'timeout'
  | 'validation'
  | 'no-handler'
  | 'corrupt'
  | 'payload-too-large'
  | 'result'
  | 'child-failed'
  | 'sandbox-crashed'
  | (string & {});

/** Which dead letters: every filter given must hold. Name and reason use indexes; errorContains scans. */
export interface FailedFilter {
  readonly name?: string;
  readonly reason?: DeadLetterReason;
  /** Case-insensitive text in the last error message. */
  readonly errorContains?: string;
  /** Dead-lettered at or after / at or before (ms since the epoch, or a Date). */
  readonly since?: number | Date;
  readonly until?: number | Date;
}

export interface FailedQuery extends FailedFilter {
  /** Jobs per page, 1 to 1,000. Default 50. */
  readonly limit?: number;
  /** The cursor of the previous page. */
  readonly cursor?: string;
}

/** A page of dead letters, newest first; `cursor` is null on the last page. With errorContains a page may hold fewer than `limit` jobs (the scan is bounded) and still have a cursor. */
export interface FailedPage<Data = unknown, Result = unknown> {
  readonly jobs: Job<Data, Result>[];
  readonly cursor: string | null;
}

export interface RedriveOptions {
  /** Attempts and stalls start again from 0. Default true. */
  readonly resetAttempts?: boolean;
  /** ms before the re-driven jobs may run (they wait in delayed). Default 0. */
  readonly delay?: number;
}

export interface PurgeOptions {
  /** Only jobs finished at least this many ms ago. */
  readonly olderThan?: number;
  readonly name?: string;
  /** At most this many jobs. */
  readonly limit?: number;
}

export type FinishedState = 'completed' | 'failed' | 'cancelled';

/** Jobs to export: a name for any state; for failed also the dead-letter filters. */
export type ExportFilter = FailedFilter;

/** Jobs by id, or every job a filter matches. */
export type BulkTarget<F> = readonly string[] | { readonly filter: F };

/** Waiting (ungrouped) or delayed jobs of a name, for bulk cancel. */
export interface CancelFilter {
  readonly state: 'waiting' | 'delayed';
  readonly name?: string;
}

/** Delayed jobs of a name (all delayed jobs without one), for bulk promote. */
export interface PromoteFilter {
  readonly name?: string;
}

const FILTER_KEYS = ['name', 'reason', 'errorContains', 'since', 'until'];

export function text(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > max) {
    throw new InvalidArgumentError(field, `must be a string of 1 to ${max} characters, got ${describe(value)}`);
  }
  return value;
}

export function time(value: unknown, field: string): number {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.getTime();
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  throw new InvalidArgumentError(field, `must be a Date or ms since the epoch, got ${describe(value)}`);
}

export interface CheckedFilter {
  readonly name?: string;
  readonly reason?: string;
  readonly errorContains?: string;
  readonly min?: number;
  readonly max?: number;
}

export function checkFilter(value: unknown, field: string, extra: readonly string[] = []): CheckedFilter {
  assertPlainObject(value, field);
  assertKnownKeys(value, [...FILTER_KEYS, ...extra], field);
  const f: CheckedFilter = {
    ...(value.name !== undefined && { name: text(value.name, `${field}.name`, 256) }),
    ...(value.reason !== undefined && { reason: text(value.reason, `${field}.reason`, 128) }),
    ...(value.errorContains !== undefined && { errorContains: text(value.errorContains, `${field}.errorContains`, 1024) }),
    ...(value.since !== undefined && { min: time(value.since, `${field}.since`) }),
    ...(value.until !== undefined && { max: time(value.until, `${field}.until`) }),
  };
  if (f.min !== undefined && f.max !== undefined && f.min > f.max) {
    throw new InvalidArgumentError(`${field}.since`, `is after ${field}.until`, 'swap them');
  }
  return f;
}

export function failedIndex(f: CheckedFilter): PageIndex {
  return { failedBy: { ...(f.name !== undefined && { name: f.name }), ...(f.reason !== undefined && { reason: f.reason }) } };
}

/**
 * What a cursor is tied to: the queue, the listing and the filters that pick
 * the index or the matches. Not since/until: callers compute them from the
 * clock on every call, and a position is valid under any time window.
 */
export function scopeOf(queue: string, listing: string, f: CheckedFilter): string {
  return [queue, listing, f.name ?? '', f.reason ?? '', f.errorContains ?? ''].join('\n');
}

export function ids(value: readonly unknown[], field: string): string[] {
  return value.map((id, i) => text(id, `${field}[${i}]`, 256));
}

export function filterOf(target: unknown, method: string): Record<string, unknown> {
  assertPlainObject(target, `${method} target`);
  assertKnownKeys(target, ['filter'], `${method} target`);
  const { filter } = target;
  assertPlainObject(filter, `${method} filter`);
  return filter;
}
