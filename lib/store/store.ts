import type { NotifyAdapter } from '../notify/notify-adapter.js';

/** Where a job is. A job id is in exactly one of these indexes at a time. */
export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'cancelled';

export const JOB_STATES: readonly JobState[] = ['waiting', 'delayed', 'active', 'completed', 'failed', 'cancelled'];

/** A job as stored. JSON fields stay strings: the engine decodes them. */
export interface JobRecord {
  readonly id: string;
  readonly name: string;
  readonly data: string;
  readonly opts: string;
  readonly state: JobState;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly createdAt: number;
  readonly runAt?: number;
  readonly startedAt?: number;
  readonly finishedAt?: number;
  readonly deadline?: number;
  readonly priority: number;
  readonly lifo: boolean;
  readonly stalled: number;
  readonly progress?: string;
  readonly result?: string;
  readonly error?: { readonly message: string; readonly stack: string; readonly code: string };
  /** Why a dead letter died: error, unrecoverable, stalled, deadline, timeout, ... */
  readonly reason?: string;
  /** Current lease token (active jobs only). */
  readonly token?: string;
  /** Group (tenant) id. */
  readonly group?: string;
  readonly cancelRequested: boolean;
}

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
  /** Retention specs "count,ageMs" (-1 = unbounded, count 0 = remove at once). */
  readonly removeOnComplete: string;
  readonly removeOnFail: string;
  /** Group (tenant) id; jobs of a group are served round-robin with other groups. */
  readonly group?: string;
}

export type AddOutcome =
  | { readonly created: true; readonly id: string; readonly state: JobState; readonly createdAt: number; readonly runAt: number }
  /** The id or the dedup key already names a job; `existing` is null when the dedup window outlived its job. */
  | { readonly created: false; readonly id: string; readonly existing: JobRecord | null };

/** A batch is added whole, or refused whole because it would pass a maxWaiting limit. */
export type AddBatchOutcome =
  | { readonly status: 'added'; readonly jobs: AddOutcome[] }
  | { readonly status: 'full'; readonly limit: number; readonly group?: string };

/** Jobs claimed; `waitMs` > 0 when nothing may start before then (rate limit or throttle). */
export interface ClaimOutcome {
  readonly jobs: JobRecord[];
  readonly waitMs: number;
}

/** At most `max` job starts per `duration` ms. */
export interface RateLimit {
  readonly max: number;
  readonly duration: number;
}

/** Limits kept in Redis for every producer and worker of a queue; null removes one, undefined leaves it. */
export interface QueueLimits {
  readonly rateLimit?: RateLimit | null;
  readonly groupConcurrency?: number | null;
  readonly groupRateLimit?: RateLimit | null;
  readonly maxWaiting?: number | null;
  readonly maxWaitingPerGroup?: number | null;
}

/** A group's own limits over the queue defaults; null falls back to the default. */
export interface GroupLimits {
  readonly concurrency?: number | null;
  readonly rateLimit?: RateLimit | null;
}

export interface GroupState {
  readonly id: string;
  readonly waiting: number;
  readonly active: number;
  readonly paused: boolean;
  readonly concurrency?: number;
  readonly rateLimit?: RateLimit;
}

export interface Lease {
  readonly id: string;
  readonly token: string;
}

export interface Fetch {
  readonly count: number;
  readonly workerId: string;
  readonly lockMs: number;
  /** Job names not to claim now (the worker runs them at their cap); they keep their places. */
  readonly exclude?: readonly string[];
}

export type CompleteOutcome =
  | { readonly status: 'completed' | 'cancelled'; readonly next: JobRecord[]; readonly waitMs: number }
  /** This token finished the job before (the reply of an earlier call was lost). */
  | { readonly status: 'already'; readonly state: JobState; readonly next: JobRecord[] }
  | { readonly status: 'lost'; readonly next: JobRecord[] };

export interface Failure {
  /** ms until the retry; 0 = waiting at once; -1 = dead-letter now. */
  readonly retryDelay: number;
  readonly reason: string;
  readonly message: string;
  readonly stack: string;
  readonly code: string;
}

export type FailOutcome =
  | { readonly status: 'moved' | 'already'; readonly state: JobState; readonly runAt: number }
  | { readonly status: 'lost' };

export type ExtendOutcome = 'renewed' | 'cancel-requested' | 'lost';
export type ReleaseOutcome = 'released' | 'cancelled' | 'lost';

export interface PromoteOutcome {
  readonly moved: number;
  /** ms until the next delayed job is due (Redis clock), null when none. */
  readonly nextDueIn: number | null;
}

export interface ReapOutcome {
  readonly id: string;
  readonly state: JobState;
}

export type CancelOutcome =
  | { readonly status: 'cancelled' }
  | { readonly status: 'requested' }
  | { readonly status: 'finished'; readonly state: JobState }
  | { readonly status: 'unknown' };

/** Jobs per state; `paused` are waiting jobs that may not start (paused queue or name), not counted in `waiting`. */
export type JobCounts = Record<JobState, number> & { readonly paused: number };

/**
 * Storage behind the engine: one method per transition, each one atomic.
 * A second backend implements this interface without touching the engine.
 */
export interface Store {
  readonly notify: NotifyAdapter;
  readonly prefix: string;
  connect(): Promise<void>;
  disconnect(): Promise<void>;

  add(queue: string, jobs: readonly NewJob[]): Promise<AddBatchOutcome>;
  claim(queue: string, fetch: Fetch): Promise<ClaimOutcome>;
  complete(queue: string, lease: Lease, result: string, fetch: Fetch): Promise<CompleteOutcome>;
  fail(queue: string, lease: Lease, failure: Failure): Promise<FailOutcome>;
  /** Back to delayed for `retryAfter` ms without spending the attempt; the queue starts nothing until then. */
  throttle(queue: string, lease: Lease, retryAfter: number): Promise<FailOutcome>;
  extend(queue: string, lockMs: number, leases: readonly Lease[]): Promise<ExtendOutcome[]>;
  release(queue: string, lease: Lease): Promise<ReleaseOutcome>;
  promote(queue: string, limit: number): Promise<PromoteOutcome>;
  reap(queue: string, maxStalled: number, limit: number): Promise<ReapOutcome[]>;
  cancel(queue: string, id: string): Promise<CancelOutcome>;
  progress(queue: string, lease: Lease, progress: string): Promise<boolean>;
  log(queue: string, lease: Lease, line: string, keep: number): Promise<number | null>;
  pause(queue: string): Promise<boolean>;
  resume(queue: string): Promise<boolean>;
  pauseNames(queue: string, names: readonly string[]): Promise<number>;
  resumeNames(queue: string, names: readonly string[]): Promise<void>;
  pauseGroup(queue: string, group: string): Promise<boolean>;
  resumeGroup(queue: string, group: string): Promise<boolean>;
  setGroupLimits(queue: string, group: string, limits: GroupLimits): Promise<void>;
  configure(queue: string, limits: QueueLimits): Promise<void>;

  isPaused(queue: string): Promise<boolean>;
  pausedNames(queue: string): Promise<string[]>;
  getLimits(queue: string): Promise<QueueLimits>;
  getGroup(queue: string, group: string): Promise<GroupState>;
  getJob(queue: string, id: string): Promise<JobRecord | null>;
  getLogs(queue: string, id: string): Promise<string[]>;
  getCounts(queue: string): Promise<JobCounts>;
  /** Ids in one state index, oldest first (by index score). */
  listIds(queue: string, state: JobState, start: number, end: number): Promise<string[]>;
  /** Walks every index and job hash of a queue; returns the inconsistencies found (empty when sound). */
  verify(queue: string): Promise<string[]>;
}
