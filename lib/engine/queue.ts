import { resolvePage, type JobsPage } from './page.js';
import { clockOf } from '../store/clock.js';
import type { AddOutcome, GroupLimits, GroupState, JobCounts, JobRecord, JobState, NewJob, QueueLimits, Store, WorkerInfo } from '../store/store.js';
import { WORKER_STALE_MS } from './worker-heartbeat.js';
import { ClosedError, InvalidArgumentError, QueueFullError } from './errors.js';
import { groupArg, groupLimits, pauseNames, queueLimits } from './limits.js';
import {
  DeadLetters,
  type BulkTarget,
  type CancelFilter,
  type ExportFilter,
  type FailedPage,
  type FailedFilter,
  type FailedQuery,
  type FinishedState,
  type PromoteFilter,
  type PurgeOptions,
  type RedriveOptions,
} from './dead-letters.js';
import { Job } from './job.js';
import { JobPreparer, type BulkJob, type PayloadValidator } from './job-preparer.js';
import { checkOptions, describe } from '../common/validation.js';
import { QUEUE_HINTS } from '../common/option-hints.js';
import type { JobOptions } from './options.js';
import { validateQueueName } from './names.js';
import { addedJob, recordOf } from './record.js';

export { recordOf };
export type { BulkJob, PayloadValidator };
import { cancelOne, redriveOne, removeOne, type CancelResult } from './single-job-ops.js';
import { waitUntilFinished, type WaitOptions } from './wait-finished.js';
import type { SchedulerJob, SchedulerRepeat } from './scheduler-spec.js';
import { Schedulers, type SchedulerInfo, type UpsertResult } from './schedulers.js';
import { readMetrics, type QueueMetrics } from './metrics.js';
import { captureTraceContext, inProducerSpan } from './tracing.js';
import { shardsOf, storeFor } from './shards.js';
import { ADD_BATCH, AddBatcher } from './add-batcher.js';

export interface QueueOptions {
  readonly store: Store;
  /** Options every job gets unless it sets its own. */
  readonly defaultJobOptions?: JobOptions;
  /** Largest encoded payload accepted, in bytes. Default 1 MiB. */
  readonly maxPayloadBytes?: number;
  readonly validate?: PayloadValidator;
  /**
   * Spreads this queue over this many physical queues (on a Redis Cluster,
   * over the masters): see README "Sharded queues". Every Queue, Worker and
   * QueueEvents of the queue must pass the same number. Default 1.
   */
  readonly shards?: number;
  /** With OpenTelemetry: adds run in a producer span whose context the jobs store. Default true; false: no span, no context stored. */
  readonly tracing?: boolean;
}

const QUEUE_OPTIONS: readonly (keyof QueueOptions)[] = ['store', 'defaultJobOptions', 'maxPayloadBytes', 'validate', 'shards', 'tracing'];

export type { CancelResult } from './single-job-ops.js';

/**
 * The producer side of a queue: add, inspect, cancel, pause.
 *
 * @example
 * const queue = new Queue<{ to: string }>('emails', { store });
 * const job = await queue.add('welcome', { to: 'ada@example.com' }, { attempts: 3 });
 */
export class Queue<Data = unknown, Result = unknown> {
  readonly name: string;
  private readonly store: Store;
  /** The store as the caller passed it (`store` is a sharded view of it when `shards` > 1). */
  private readonly base: Store;
  private readonly preparer: JobPreparer<Data>;
  private readonly schedulers: Schedulers<Data>;
  private readonly many: DeadLetters<Data, Result>;
  private readonly adds: AddBatcher;
  private closed = false;
  private readonly tracing: boolean;

  constructor(name: string, options: QueueOptions) {
    this.name = validateQueueName(name, 'Queue name', "new Queue('emails', { store })");
    checkOptions<QueueOptions>(options, QUEUE_OPTIONS, 'Queue options', QUEUE_HINTS);
    if (!options.store) throw new InvalidArgumentError('Queue options.store', 'is required', 'pass a connected RedisStore');
    if (options.tracing !== undefined && typeof options.tracing !== 'boolean') {
      throw new InvalidArgumentError('Queue options.tracing', `must be a boolean, got ${describe(options.tracing)}`);
    }
    this.tracing = options.tracing ?? true;
    this.store = storeFor(options.store, this.name, options.shards, 'Queue options.shards');
    this.base = options.store;
    this.adds = new AddBatcher(this.store, this.name);
    this.preparer = new JobPreparer<Data>(options, () => clockOf(this.store).now(), (count) => this.store.reserveIds(this.name, count));
    this.schedulers = new Schedulers<Data>(this.name, this.store, async (job) => (await this.prepare({ ...job, data: job.data as Data }, 'job.', captureTraceContext(this.tracing))).job);
    this.many = new DeadLetters<Data, Result>(this.store, this.name, (id) => cancelOne(this.store, this.name, id));
  }

  /** Adds one job (the adds of one turn share a script call). With a jobId or dedup key that already names a job, returns that job instead. */
  async add(name: string, data: Data, opts?: JobOptions): Promise<Job<Data, Result>> {
    const [job] = await this.addBulk([{ name, data, opts }]);
    return job!;
  }

  /**
   * Adds many jobs: all are checked before any is written, and each batch of
   * 1,000 is one script call. Against maxWaiting a batch is all-or-nothing:
   * a full queue throws QueueFullError and writes nothing of that batch (a
   * bulk over 1,000 jobs keeps the batches before it).
   */
  async addBulk(jobs: readonly BulkJob<Data>[]): Promise<Job<Data, Result>[]> {
    this.assertOpen('addBulk');
    if (!Array.isArray(jobs)) throw new InvalidArgumentError('jobs', `must be an array of { name, data, opts }, got ${describe(jobs)}`);
    // With OpenTelemetry: a producer span whose context every job stores (lib/engine/tracing.ts).
    return inProducerSpan(this.name, jobs.length, () => this.write(jobs), this.tracing);
  }

  private async write(jobs: readonly BulkJob<Data>[]): Promise<Job<Data, Result>[]> {
    const traceContext = captureTraceContext(this.tracing);
    const prepared = (await Promise.all(jobs.map((job, i) => this.prepare(job, jobs.length === 1 ? '' : `jobs[${i}].`, traceContext)))).map((p) => p.job);
    let outcomes: readonly AddOutcome[] = [];
    // In order, so a maxWaiting refusal leaves the earlier batches whole and the rest unwritten; one job joins this turn's call.
    for (let i = 0; i < prepared.length; i += ADD_BATCH) {
      const reply = await this.adds.add(prepared.length <= ADD_BATCH ? prepared : prepared.slice(i, i + ADD_BATCH));
      if (reply.status === 'full') throw new QueueFullError(this.name, reply.limit, reply.group);
      outcomes = i === 0 ? reply.jobs : outcomes.concat(reply.jobs);
    }
    return outcomes.map((outcome, i) => {
      // Numbered anew by the store: the counter went back (a failover lost draws), so the rest of this producer's block is taken too.
      if (outcome.created && outcome.id !== prepared[i]!.id) this.discardIds();
      return addedJob<Data, Result>(this.name, this.store, outcome, prepared[i]!, jobs[i]!.data);
    });
  }

  async getJob(id: string): Promise<Job<Data, Result> | null> {
    const record = await this.store.getJob(this.name, id);
    return record && new Job<Data, Result>(this.name, record, undefined, this.store);
  }

  /**
   * One page of a state's jobs, oldest first (waiting: ungrouped jobs in the order workers take them): `{ start, end }` are inclusive
   * positions (end -1 = the last); the default is the first 100.
   * `getJobs(state, start, end)` means the same as `{ start, end }`.
   */
  async getJobs(state: JobState, page?: JobsPage | number, end?: number): Promise<Job<Data, Result>[]> {
    const range = resolvePage(page, end);
    const ids = await this.store.listIds(this.name, state, range.start, range.end);
    const records = await Promise.all(ids.map((id) => this.store.getJob(this.name, id)));
    return records.filter((r): r is JobRecord => r !== null).map((r) => new Job<Data, Result>(this.name, r, undefined, this.store));
  }

  getLogs(id: string): Promise<string[]> {
    return this.store.getLogs(this.name, id);
  }

  /**
   * Cancels a waiting or delayed job (or a flow parent waiting for its
   * children) at once; asks the worker of an active job to stop it (its
   * job.signal aborts). A flow parent's unfinished children are cancelled too.
   */
  cancel(id: string): Promise<CancelResult>;
  /** Bulk: cancels these jobs, or the waiting (ungrouped) or delayed ones a filter names; resolves how many were cancelled or asked to stop. */
  cancel(target: BulkTarget<CancelFilter>): Promise<number>;
  cancel(target: string | BulkTarget<CancelFilter>): Promise<CancelResult | number> {
    return typeof target === 'string' ? cancelOne(this.store, this.name, target) : this.many.cancel(target);
  }

  /**
   * Re-drives a dead letter: failed -> waiting, attempts reset (a flow parent
   * with children still pending goes back to waiting-children). A flow parent
   * dead-lettered because of this child resumes waiting for it. Resolves the
   * job's new state; JobNotFailedError for a job that is not failed.
   */
  retry(id: string): Promise<JobState> {
    return redriveOne(this.store, this.name, id);
  }

  /** Same as retry(): re-drives a dead letter. */
  redrive(id: string): Promise<JobState>;
  /**
   * Bulk: re-drives these dead letters, or every one a filter matches, in
   * batches; jobs no longer failed are skipped. Resolves how many moved.
   */
  redrive(target: BulkTarget<FailedFilter>, options?: RedriveOptions): Promise<number>;
  redrive(target: string | BulkTarget<FailedFilter>, options?: RedriveOptions): Promise<JobState | number> {
    return typeof target === 'string' ? this.retry(target) : this.many.redrive(target, options);
  }

  /** A page of dead letters, newest first, filtered by name, reason, error text and time (see README "Dead letters"). */
  getFailed(query?: FailedQuery): Promise<FailedPage<Data, Result>> {
    return this.many.getFailed(query);
  }

  /** Deletes completed, failed or cancelled jobs in short batches; resolves how many. */
  purge(state: FinishedState, options?: PurgeOptions): Promise<number> {
    return this.many.purge(state, options);
  }

  /** Snapshots of every job in a state (oldest first), read a page at a time; see toNdjson() for files. */
  exportJobs(state: JobState, filter?: ExportFilter): AsyncGenerator<Job<Data, Result>> {
    return this.many.exportJobs(state, filter);
  }

  /** How many jobs of a state a filter (name; for failed also reason, error text, time) matches; getCounts()[state] without one. */
  countJobs(state: JobState, filter?: ExportFilter): Promise<number> {
    return this.many.count(state, filter);
  }

  /** Runs delayed jobs now: these ids, or every delayed job (of a name). Resolves how many moved. */
  promote(target: BulkTarget<PromoteFilter>): Promise<number> {
    return this.many.promote(target);
  }

  /**
   * Deletes a finished job (completed, failed or cancelled) with its logs.
   * Resolves false for an unknown id; throws JobNotFinishedError for a job
   * still waiting or running, ChildrenPendingError for a flow parent whose
   * children are not all finished.
   */
  remove(id: string): Promise<boolean> {
    return removeOne(this.store, this.name, id);
  }

  /** Resolves with the job's result once it completed; rejects with JobFailedError, JobCancelledError or WaitTimeoutError. */
  waitFor(id: string, options?: WaitOptions): Promise<Result> {
    return waitUntilFinished<Result>(this.store, this.name, id, options);
  }

  /** Whether this queue reads and writes through `store` (a FlowProducer accepts only queues of its own store). */
  usesStore(store: Store): boolean {
    return this.base === store;
  }

  /** How many physical queues this queue is spread over (option `shards`; 1 when not sharded). */
  get shards(): number {
    return shardsOf(this.store, this.name);
  }

  getCounts(): Promise<JobCounts> {
    return this.store.getCounts(this.name);
  }

  /** Counts, oldest waiting age, delayed lag and the last hour's counters and handler durations per minute (lib/engine/metrics.ts). */
  getMetrics(): Promise<QueueMetrics> {
    return readMetrics(this.store, this.name);
  }

  /**
   * Workers everywhere stop claiming from this queue (or, with `names`, jobs
   * of those names); waiting jobs keep their places. Resolves true when the
   * pause is new (for names: when at least one name was newly paused).
   */
  async pause(options?: { readonly names?: readonly string[] }): Promise<boolean> {
    const names = pauseNames(options, 'pause');
    if (names === undefined) return this.store.pause(this.name);
    return (await this.store.pauseNames(this.name, names)) > 0;
  }

  /** Undoes pause() for the queue, or for the given names; paused jobs return to their places. */
  async resume(options?: { readonly names?: readonly string[] }): Promise<boolean> {
    const names = pauseNames(options, 'resume');
    if (names === undefined) return this.store.resume(this.name);
    await this.store.resumeNames(this.name, names);
    return true;
  }

  /** Job names paused with pause({ names }). */
  pausedNames(): Promise<string[]> {
    return this.store.pausedNames(this.name);
  }

  /**
   * Sets limits every producer and worker of this queue honours, kept in
   * Redis: rateLimit (starts per window, whole queue), groupConcurrency and
   * groupRateLimit (defaults per group), maxWaiting and maxWaitingPerGroup
   * (add() past them throws QueueFullError). null removes a limit; an absent
   * key leaves it.
   */
  async configure(limits: QueueLimits): Promise<void> {
    await this.store.configure(this.name, queueLimits(limits));
  }

  getLimits(): Promise<QueueLimits> {
    return this.store.getLimits(this.name);
  }

  /** Stops starting jobs of one group; its waiting jobs keep their order. */
  pauseGroup(group: string): Promise<boolean> {
    return this.store.pauseGroup(this.name, groupArg(group));
  }

  resumeGroup(group: string): Promise<boolean> {
    return this.store.resumeGroup(this.name, groupArg(group));
  }

  /** One group's own concurrency cap and rate limit, over the queue defaults (null: back to the default). */
  async setGroupLimits(group: string, limits: GroupLimits): Promise<void> {
    await this.store.setGroupLimits(this.name, groupArg(group), groupLimits(limits));
  }

  getGroup(group: string): Promise<GroupState> {
    return this.store.getGroup(this.name, groupArg(group));
  }

  isPaused(): Promise<boolean> {
    return this.store.isPaused(this.name);
  }

  /** Creates or replaces scheduler `id`: each tick of `repeat` adds one `job` (id `<id>:<tick ms>`); the same definition again changes nothing. */
  upsertScheduler(id: string, repeat: SchedulerRepeat, job: SchedulerJob<Data>): Promise<UpsertResult> {
    this.assertOpen('upsertScheduler');
    return this.schedulers.upsert(id, repeat, job);
  }

  getScheduler(id: string): Promise<SchedulerInfo<Data> | null> {
    return this.schedulers.get(id);
  }

  getSchedulers(): Promise<SchedulerInfo<Data>[]> {
    return this.schedulers.list();
  }

  /** Deletes a scheduler and its pending tick; resolves false for an unknown id. */
  removeScheduler(id: string): Promise<boolean> {
    return this.schedulers.remove(id);
  }

  /** Workers heard from in the last 15 s (lib/store/worker-registry), oldest started first. */
  getWorkers(): Promise<WorkerInfo[]> {
    return this.store.listWorkers(this.name, WORKER_STALE_MS);
  }

  /** Inconsistencies between the queue's indexes and job hashes; empty when sound. */
  verify(): Promise<string[]> {
    return this.store.verify(this.name);
  }

  /** Refuses further adds. The store stays open: it belongs to whoever created it. */
  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(what: string): void {
    if (this.closed) throw new ClosedError(`${what}() on queue "${this.name}" after close()`);
  }

  /**
   * @internal Checks and encodes one job with this queue's defaults and validator (FlowProducer uses it too);
   * `traceContext`: what the job stores (captureTraceContext: the producer span's, taken once for a bulk).
   */
  prepare(job: BulkJob<Data>, at: string, traceContext: string | undefined): Promise<{ job: NewJob }> {
    return this.preparer.prepare(job, at, traceContext);
  }

  /** @internal Jobs hold the numbers this producer has in hand (the store's counter went back): the next ones are drawn afresh. */
  discardIds(): void {
    this.preparer.discardIds();
  }
}
