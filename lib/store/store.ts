import { SpoolError } from '../common/errors.js';
import type { SchedulerStore } from './scheduler-store.js';
import type { NotifyAdapter, Unsubscribe } from '../notify/notify-adapter.js';
import type { Clock } from './clock.js';
import type { MinuteCounts, MinuteRecord, MetricsRecord, PageIndex, PageQuery, Page, PurgeQuery, PurgeStep, RedriveManyOutcome, StoredEvent, StreamInfo, EventReader } from './operations.js';
export type { MinuteCounts, MinuteRecord, MetricsRecord, PageIndex, PageQuery, Page, PurgeQuery, PurgeStep, RedriveManyOutcome, StoredEvent, StreamInfo, EventReader } from './operations.js';
import type { Completion, CompleteManyOutcome } from './completion.js';
export type { Completion, CompletionStatus, CompleteManyOutcome } from './completion.js';
import type { AddFlowOutcome, ChildRef, ChildrenRecord, DeliverOutcome, NewFlowNode } from './flow-records.js';
export type { AddFlowOutcome, ChildFailure, ChildRef, ChildrenRecord, DeliverOutcome, NewFlowNode, StoredFailurePolicy } from './flow-records.js';
import type { GroupLimits, GroupState, QueueLimits } from './limit-records.js';
import type { WorkerRegistry, WorkerRequests } from './worker-registry.js';
import type { JobChanges } from './job-changes.js';
export type { DrainQuery, DrainStep, JobChange, JobChangeKind, JobChangeOutcome, JobChanges, ObliterateOutcome } from './job-changes.js';
import type { AddBatchOutcome, NewJob } from './add-records.js';
export type { AddBatchOutcome, AddOutcome, NewJob } from './add-records.js';
import type { ImportedJob, ImportOutcome } from './import-records.js';
import type { TransactionClient } from './transaction.js';
export type { EnqueueOptions, TransactionClient } from './transaction.js';
export type { ImportedJob, ImportOutcome, ImportState } from './import-records.js';
export type { WorkerBeat, WorkerInfo, WorkerRegistry, WorkerRequests } from './worker-registry.js';
export type { GroupLimits, GroupState, QueueLimits, RateLimit } from './limit-records.js';

/**
 * Where a job is. A job id is in exactly one of these indexes at a time.
 * 'waiting-children': a flow parent waiting until its children are done.
 */
export type JobState = 'waiting' | 'delayed' | 'active' | 'completed' | 'failed' | 'cancelled' | 'waiting-children';

/** The retention spec that keeps every finished job: no count bound, no age bound. */
export const KEEP_ALL = '-1,-1';

/**
 * The retention specs of DEFAULT_RETENTION (lib/engine/options.ts). add.lua
 * stores no rc/rf for a job that has them: a compact hash (no `id` field)
 * without rc/rf means these (lua/includes/retention, SPOOL_DEFAULT_SPECS).
 */
export const DEFAULT_SPECS = { completed: '1000,86400000', failed: '10000,2592000000' } as const;

export const JOB_STATES: readonly JobState[] = ['waiting', 'delayed', 'active', 'completed', 'failed', 'cancelled', 'waiting-children'];

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
  /** The flow parent this job reports to. */
  readonly parent?: ChildRef;
  /** The producer's trace context (JSON of a W3C trace-context carrier), when OpenTelemetry was on at add. */
  readonly traceContext?: string;
}

/** What the store answers to a redrive of one job: re-driven, not a dead letter, or unknown. */
export type RedriveOutcome =
  | { readonly status: 'redriven'; readonly state: JobState }
  | { readonly status: 'not-failed'; readonly state: JobState }
  | { readonly status: 'unknown' };

/** What the store answers to the removal of one job: removed, refused (not finished, children pending), or unknown. */
export type RemoveOutcome =
  | { readonly status: 'removed' }
  | { readonly status: 'not-finished'; readonly state: JobState }
  | { readonly status: 'children-pending'; readonly pending: number }
  | { readonly status: 'unknown' };

/** Jobs claimed; `waitMs` > 0 when nothing may start before then (rate limit or throttle). */
export interface ClaimOutcome {
  readonly jobs: JobRecord[];
  readonly waitMs: number;
}

/** A job a worker holds: its id and lease token (the token proves the holder in every later call). */
export interface Lease {
  readonly id: string;
  readonly token: string;
  /** The job reports to a flow parent: finishing it (complete, dead-letter, cancel) tells the parent. */
  readonly child?: boolean;
}

/** A worker's claim: how many jobs, under which worker id, for how long a lease, and the job names it caps. */
export interface Fetch {
  readonly count: number;
  readonly workerId: string;
  readonly lockMs: number;
  /**
   * Job names the worker caps (nameConcurrency), each with how many more of
   * its jobs this claim may take (0: none now). Jobs stepped over keep their places.
   */
  readonly nameRoom?: readonly (readonly [name: string, room: number])[];
  /**
   * The caller was woken by a new-work announcement: claim only this
   * worker's share of the announced work (so one add does not wake every
   * idle worker into an empty claim), in the same round trip.
   */
  readonly woken?: boolean;
  /**
   * The worker listens for pushes (Store.onPushed) and has this many running
   * slots free for this claim's jobs: a claim that leaves some of them empty
   * (the queue ran dry) names it as the idle worker the next add hands its
   * jobs to, for those slots; one that does not drops its name (it is busy
   * again). Absent: the worker does not listen for pushes.
   */
  readonly pushSlots?: number;
}

/** What the store answers to a completion: done (with the next jobs claimed in the same call), done before by this token, or the lease was lost. */
export type CompleteOutcome =
  | { readonly status: 'completed' | 'cancelled'; readonly next: JobRecord[]; readonly waitMs: number }
  /** This token finished the job before (the reply of an earlier call was lost). */
  | { readonly status: 'already'; readonly state: JobState; readonly next: JobRecord[] }
  | { readonly status: 'lost'; readonly next: JobRecord[] };

/** A failed attempt as the engine reports it to the store: when to retry (or dead-letter now), and the error to record. */
export interface Failure {
  /** ms until the retry; 0 = waiting at once; -1 = dead-letter now. */
  readonly retryDelay: number;
  readonly reason: string;
  readonly message: string;
  readonly stack: string;
  readonly code: string;
}

/** What the store answers to a failure: the job moved (to delayed for a retry, or to the dead letters), was moved before by this token, or the lease was lost. */
export type FailOutcome =
  | { readonly status: 'moved' | 'already'; readonly state: JobState; readonly runAt: number }
  | { readonly status: 'lost' };

/** A lease renewal's answer: renewed, renewed with a cancel requested (the holder should stop), or lost (the holder must stop). */
export type ExtendOutcome = 'renewed' | 'cancel-requested' | 'lost';
/** A release's answer (shutdown hands a job back): released to waiting, finished as cancelled (a cancel request was pending), or lost. */
export type ReleaseOutcome = 'released' | 'cancelled' | 'lost';

/** What one promotion of due delayed jobs did, and when the next one is due. */
export interface PromoteOutcome {
  readonly moved: number;
  /** ms until the next delayed job is due (Redis clock), null when none. */
  readonly nextDueIn: number | null;
  /** Schedulers whose list of upcoming cron times runs low: the engine computes more (engine/schedulers). */
  readonly refill?: readonly string[];
}

/** A job whose lease expired, and where the reaper moved it (waiting again, or failed past its stall limit). */
export interface ReapOutcome {
  readonly id: string;
  readonly state: JobState;
}

/** `children`: flow children the job still waits for; the engine cancels them in their queues. */
export type CancelOutcome =
  | { readonly status: 'cancelled'; readonly children: ChildRef[] }
  | { readonly status: 'requested'; readonly children: ChildRef[] }
  | { readonly status: 'finished'; readonly state: JobState; readonly children: ChildRef[] }
  | { readonly status: 'unknown'; readonly children: ChildRef[] };

/** Jobs per state (flow parents in 'waiting-children'); `paused` are waiting jobs that may not start (paused queue or name), not counted in `waiting`. */
export type JobCounts = Record<JobState, number> & { readonly paused: number };

/**
 * Storage behind the engine: one method per transition, each one atomic.
 * A second backend implements this interface without touching the engine.
 * A transition that finishes a flow child (complete, fail to a dead letter,
 * cancel, redrive) also tells its parent before it resolves: how is the
 * store's business (Redis: an outbox, because a flow spans hash slots).
 */
export interface Store extends WorkerRegistry, Partial<WorkerRequests>, JobChanges {
  readonly notify: NotifyAdapter;
  /** The time the store's transitions use, when it is not the system's (MemoryStore); the engine's timers follow it. */
  readonly clock?: Clock;
  /** Cron and every-N schedulers; a store without them refuses Queue.upsertScheduler(). */
  readonly schedulers?: SchedulerStore;
  /**
   * Where users of the store report calls that failed because the backend is
   * unreachable: summarized per outage instead of logged one by one. A store
   * without it leaves such failures to the caller's logger.
   */
  readonly outage?: { failed(what: string, err: unknown, queue?: string): void };
  /** One round trip to the backend, in ms, for readiness checks; rejects when it cannot answer. */
  ping(): Promise<number>;
  /**
   * The physical queue names of a sharded queue (Queue option `shards`),
   * chosen on first use and kept, so every process agrees (RedisStore: see
   * shard-placement.ts). Absent: shards are named `<queue>~<k>`.
   */
  placeShards?(queue: string, count: number): Promise<readonly string[]>;
  /** How many shards `queue` was placed on (placeShards), undefined when it never was; writes nothing. */
  shardCount?(queue: string): Promise<number | undefined>;
  connect(): Promise<void>;
  disconnect(): Promise<void>;

  /**
   * Takes `count` job ids from the queue's counter, for jobs added without a
   * jobId: resolves the last of them (the ids are last - count + 1 .. last).
   * One counter per queue (RedisStore: field `ids` of its meta hash), so every
   * process draws ids no other draws; a producer takes them in blocks.
   * `taken`: a numbered id a job was found holding (the counter went back):
   * the counter first moves past every block drawn around it, as add.lua's
   * renumbering does (lua/includes/ids).
   */
  reserveIds(queue: string, count: number, taken?: string): Promise<number>;
  add(queue: string, jobs: readonly NewJob[]): Promise<AddBatchOutcome>;
  /**
   * add() inside the caller's own database transaction (`tx`: its client):
   * the jobs commit or roll back with it, and workers hear of them on commit.
   * Absent: the store cannot (RedisStore has it only with option `outbox`).
   */
  addInTransaction?(queue: string, jobs: readonly NewJob[], tx: TransactionClient): Promise<AddBatchOutcome>;
  claim(queue: string, fetch: Fetch): Promise<ClaimOutcome>;
  /**
   * Jobs an add leased straight to this idle worker (pushes, lua/includes/push):
   * `listener` gets them as a claim would. Resolves undefined when this store
   * cannot push (its notify adapter is not Redis pub/sub): the worker then
   * claims what wake-ups announce. Absent: the same.
   */
  onPushed?(queue: string, workerId: string, listener: (jobs: JobRecord[]) => void): Promise<Unsubscribe | undefined>;
  /** The worker takes no more pushes: its name is dropped, so no add leases a job to it after this resolves. */
  stopPushes?(queue: string, workerId: string): Promise<void>;
  /** `durationMs`: how long the handler ran, counted in the queue's per-minute duration buckets (getMetrics). */
  complete(queue: string, lease: Lease, result: string, fetch: Fetch, durationMs?: number): Promise<CompleteOutcome>;
  /**
   * Several completions in one call (a worker's jobs that finished while its
   * previous write was in flight), each checked against its own lease token,
   * then a claim of `fetch.count` next jobs. complete() is the one-job case.
   */
  completeMany(queue: string, completions: readonly Completion[], fetch: Fetch): Promise<CompleteManyOutcome>;
  fail(queue: string, lease: Lease, failure: Failure): Promise<FailOutcome>;
  /**
   * Back to delayed for `retryAfter` ms without spending the attempt; with
   * `wholeQueue` (default true) the queue starts nothing until then either.
   */
  throttle(queue: string, lease: Lease, retryAfter: number, wholeQueue?: boolean): Promise<FailOutcome>;
  extend(queue: string, lockMs: number, leases: readonly Lease[]): Promise<ExtendOutcome[]>;
  release(queue: string, lease: Lease): Promise<ReleaseOutcome>;
  promote(queue: string, limit: number): Promise<PromoteOutcome>;
  reap(queue: string, maxStalled: number, limit: number): Promise<ReapOutcome[]>;
  cancel(queue: string, id: string): Promise<CancelOutcome>;
  /**
   * Cancels the given jobs that still wait, in one step where the store can
   * batch it (RedisStore: a list scan per call, not per job); true per id
   * cancelled, false for one that no longer waits (cancel it on its own).
   * Optional: without it, callers cancel one by one.
   */
  cancelWaiting?(queue: string, ids: readonly string[]): Promise<boolean[]>;
  progress(queue: string, lease: Lease, progress: string): Promise<boolean>;
  /** Replaces the payload (JSON) of the job this lease holds; false when the lease is lost (nothing written). */
  updateData(queue: string, lease: Lease, data: string): Promise<boolean>;
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
  /** The stored outcome of a side effect recorded by job.once(), or null when not recorded (or expired). */
  getOnce(queue: string, key: string): Promise<string | null>;
  /** Records a side effect as done, with its outcome (JSON), for ttl ms. */
  setOnce(queue: string, key: string, outcome: string, ttlMs: number): Promise<void>;
  getCounts(queue: string): Promise<JobCounts>;
  /** Counts, ages and the per-minute counters of the last hour, read in a bounded number of commands. */
  getMetrics(queue: string): Promise<MetricsRecord>;
  /**
   * Samples the two gauges (oldest waiting age, delayed lag) into the current minute's metrics, once: true when
   * this call took the sample, false when the minute had one. Workers call it from their heartbeat, at most
   * once a minute each; the cost is getMetrics' age read, never per job.
   */
  sampleGauges(queue: string): Promise<boolean>;
  /** Ids in one state index, oldest first (by index score); waiting: the ungrouped jobs in claim order, across both lanes (lua/includes/waiting-lanes). */
  listIds(queue: string, state: JobState, start: number, end: number): Promise<string[]>;
  /** Names of the queues under this store's prefix, sorted, found by scanning the keyspace: for operators' tools, never a hot path. */
  listQueues(): Promise<string[]>;
  /** Walks every index and job hash of a queue; returns the inconsistencies found (empty when sound). */
  verify(queue: string): Promise<string[]>;

  // Flows and dead letters.
  /** Adds a flow across queues, all or nothing: a duplicate id anywhere keeps nothing. */
  addFlow(nodes: readonly NewFlowNode[]): Promise<AddFlowOutcome>;
  /** addFlow() inside the caller's own database transaction (see addInTransaction). Absent: the store cannot. */
  addFlowInTransaction?(nodes: readonly NewFlowNode[], tx: TransactionClient): Promise<AddFlowOutcome>;
  /**
   * Finishes, for one queue, what crashed processes left half done (for
   * Redis: flow notifications not yet delivered to their parents' queues,
   * flow adds not yet committed). Does up to about `limit` items; returns
   * how many, so a caller repeats while it gets `limit`. Idempotent.
   */
  housekeep(queue: string, limit: number): Promise<number>;
  getChildren(queue: string, id: string): Promise<ChildrenRecord>;
  /** failed -> waiting (or waiting-children), attempts reset. */
  redrive(queue: string, id: string): Promise<RedriveOutcome>;
  remove(queue: string, id: string): Promise<RemoveOutcome>;
  /** Marks the job as waited for (its finish is published); resolves its state, null when unknown. */
  watch(queue: string, id: string): Promise<JobState | null>;

  // Operations on many jobs and the event stream (lib/engine/dead-letters.ts, queue-events.ts).
  page(queue: string, query: PageQuery): Promise<Page>;
  /** One bounded step of a purge; call again with the returned cursor until done. */
  purge(queue: string, query: PurgeQuery): Promise<PurgeStep>;
  /** Re-drives the failed jobs among `ids` (others are skipped), in one script call. */
  redriveMany(queue: string, ids: readonly string[], options: { readonly resetAttempts: boolean; readonly delay: number }): Promise<RedriveManyOutcome>;
  /** Moves the delayed jobs among `ids` to waiting now; returns how many moved. */
  promoteJobs(queue: string, ids: readonly string[]): Promise<number>;
  /** Opens a reader of the queue's event stream on a connection of its own. */
  openEvents(queue: string): EventReader;
  /**
   * Writes jobs from another queue system with their history (lib/migrate): per job 'imported', or 'exists' when
   * its id names a job or was imported before, even one gone since. Absent: the store cannot import.
   */
  importJobs?(queue: string, jobs: readonly ImportedJob[]): Promise<ImportOutcome[]>;
}

/**
 * Errors a store raises on purpose, and the retry rule of the Store
 * contract: `permanent` tells the engine whether repeating the call can
 * help. Any other error (a dropped connection) is worth repeating; a refused
 * script or a closed store is not.
 *
 * Do: when `permanent` is false, repeat the call later (workers do); when
 * true, repeating cannot help: act on the message.
 */
export class StoreError extends SpoolError {
  constructor(message: string, readonly permanent: boolean, options?: ErrorOptions) {
    super(message, options);
  }
}
