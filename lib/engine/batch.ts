import { checkOptions, positiveInteger } from '../common/validation.js';
import { InvalidArgumentError, SpoolError } from './errors.js';
import type { ActiveJob } from './active-job.js';

/** Worker options.batch (engine) and `@OnJob(name, { batch })` (Nest): the handler takes jobs in batches. */
export interface BatchOptions {
  /** Most jobs per call of the handler (1 to 10,000). */
  readonly size: number;
  /** How long the first job of a batch waits for more before the handler runs with what it has, in ms. Default 50. */
  readonly maxWaitMs?: number;
}

export type ResolvedBatchOptions = Required<BatchOptions>;

/** What a batch handler gets beside its jobs. */
export interface Batch<Data = unknown, Result = unknown> {
  /**
   * Fails one job of the batch with `error` (retried or dead-lettered as its
   * own options say) while the others complete with what the handler returns.
   */
  fail(job: ActiveJob<Data, Result>, error: unknown): void;
}

/**
 * Runs up to `size` jobs at once; returns one result per job, in the order
 * of `jobs` (or nothing: every job completes with null). A throw fails every
 * job of the batch not already failed with batch.fail(). Each job keeps its
 * own lease, attempts, backoff, dead letter, events and metrics.
 */
export type BatchHandler<Data = unknown, Result = unknown> = (
  jobs: ActiveJob<Data, Result>[],
  batch: Batch<Data, Result>,
) => Promise<readonly Result[] | void> | readonly Result[] | void;

/**
 * The batch handler returned something other than one result per job: every job of the batch fails with it.
 *
 * Do: return one result per job, in the jobs' order, or nothing.
 */
export class BatchResultError extends SpoolError {}

const KEYS: readonly (keyof BatchOptions)[] = ['size', 'maxWaitMs'];

export function resolveBatchOptions(value: unknown, field: string): ResolvedBatchOptions {
  checkOptions<BatchOptions>(value, KEYS, field);
  if (value.size === undefined) throw new InvalidArgumentError(`${field}.size`, 'is required', 'say how many jobs one call of the handler takes, e.g. { size: 100 }');
  const size = positiveInteger(value.size, `${field}.size`, 10_000);
  const maxWaitMs = value.maxWaitMs === undefined ? 50 : value.maxWaitMs === 0 ? 0 : positiveInteger(value.maxWaitMs, `${field}.maxWaitMs`);
  return { size, maxWaitMs };
}
