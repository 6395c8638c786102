import type { JobRecord, JobState } from './store.js';

/** A job to add, already validated and encoded by the engine. */
export interface NewJob {
  readonly id: string;
  readonly name: string;
  readonly data: string;
  readonly opts: string;
  /** ms from now; 0 = waiting at once. */
  readonly delay: number;
  readonly priority: number;
  readonly lifo: boolean;
  readonly maxAttempts: number;
  /** Absolute ms timestamp, 0 = none. */
  readonly deadline: number;
  /** ttl 0 = held until the job finishes. */
  readonly dedup?: { readonly key: string; readonly ttl: number };
  /** Retention specs "count,ageMs" (-1 = unbounded, count 0 = remove at once; KEEP_ALL keeps every job). */
  readonly removeOnComplete: string;
  readonly removeOnFail: string;
  /** Group (tenant) id; jobs of a group are served round-robin with other groups. */
  readonly group?: string;
  /** The producer's trace context (JSON carrier, lib/engine/tracing.ts); stored as job field tc. */
  readonly traceContext?: string;
  /**
   * The numbered id was drawn from another queue's counter (a sharded queue
   * draws every id from its first shard's): when a job already holds it, the
   * store writes nothing for this job and reports it `taken`, instead of
   * numbering it anew from this queue's own counter, which the drawing
   * counter knows nothing of (two jobs could then get one id).
   */
  readonly reportTaken?: true;
}

/** What the store answers for one job of an add: created (with its state and times), or the job its id or dedup key already names. */
export type AddOutcome =
  | { readonly created: true; readonly id: string; readonly state: JobState; readonly createdAt: number; readonly runAt: number }
  /**
   * The id or the dedup key already names a job; `existing` is null when the
   * dedup window outlived its job. `taken`: a job sent with `reportTaken`
   * whose numbered id another job holds; nothing was written for it.
   */
  | { readonly created: false; readonly id: string; readonly existing: JobRecord | null; readonly taken?: true };

/** A batch is added whole, or refused whole because it would pass a maxWaiting limit. */
export type AddBatchOutcome =
  | { readonly status: 'added'; readonly jobs: AddOutcome[] }
  | { readonly status: 'full'; readonly limit: number; readonly group?: string };

/**
 * A retention spec ("count,ageMs", NewJob.removeOnComplete/removeOnFail) read back as numbers, -1 for
 * unbounded; '' and an absent spec keep every job. For the stores that do not pass the string to a script.
 */
export function parseRetention(spec: string | undefined): { readonly count: number; readonly age: number } {
  if (spec === undefined || spec === '') return { count: -1, age: -1 };
  const [count, age] = spec.split(',').map(Number);
  return { count: Number.isFinite(count) ? count! : -1, age: Number.isFinite(age) ? age! : -1 };
}
