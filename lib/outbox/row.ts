import { SpoolError } from '../common/errors.js';
import { describe } from '../common/validation.js';
import type { NewJob } from '../store/store.js';

/**
 * An outbox row whose `job` is not a job the relay can add (written by hand,
 * by another program, or damaged): the relay counts it as a refusal and sets
 * it aside after maxAttempts.
 *
 * Do: list the set-aside rows (`outbox.failed()` or `spool outbox failed`),
 * fix the row's job in the table and `retry()` it, or `discard()` it.
 */
export class OutboxRowError extends SpoolError {
  constructor(readonly field: string, expected: string, got: unknown) {
    super(`outbox row: job.${field} must be ${expected}, got ${describe(got)}`);
  }
}

type Check = (v: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isInteger: Check = (v) => Number.isInteger(v);

/** The fields Outbox.write() stores (a NewJob as the engine prepared it), each with its check. */
const REQUIRED: readonly (readonly [keyof NewJob, Check, string])[] = [
  ['id', (v) => typeof v === 'string' && v !== '', 'a non-empty string'],
  ['name', isString, 'a string'],
  ['data', isString, 'a string (JSON)'],
  ['opts', isString, 'a string (JSON)'],
  ['delay', isNumber, 'a number of ms'],
  ['priority', isInteger, 'an integer'],
  ['lifo', (v) => typeof v === 'boolean', 'a boolean'],
  ['maxAttempts', (v) => isInteger(v) && (v as number) >= 1, 'an integer >= 1'],
  ['deadline', isNumber, 'a number (epoch ms, 0 for none)'],
  ['removeOnComplete', isString, 'a retention spec "count,ageMs"'],
  ['removeOnFail', isString, 'a retention spec "count,ageMs"'],
];

/** The row's job checked field by field (cheap: a few typeof per row), or an OutboxRowError naming the first wrong field. */
export function rowJob(raw: unknown): NewJob {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new OutboxRowError('(whole)', 'an object', raw);
  const job = raw as Record<string, unknown>;
  for (const [field, ok, expected] of REQUIRED) if (!ok(job[field])) throw new OutboxRowError(field, expected, job[field]);
  for (const field of ['group', 'traceContext'] as const) {
    if (job[field] !== undefined && !isString(job[field])) throw new OutboxRowError(field, 'a string when present', job[field]);
  }
  // Its fields are the store's to judge (Redis refuses a dedup without a key: a refusal counted like this one).
  if (job.dedup !== undefined && (typeof job.dedup !== 'object' || job.dedup === null)) throw new OutboxRowError('dedup', 'an object when present', job.dedup);
  return job as unknown as NewJob;
}
