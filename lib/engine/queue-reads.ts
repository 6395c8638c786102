import { resolvePage, type JobsPage } from './page.js';
import type { GroupState, JobCounts, JobRecord, JobState, QueueLimits, Store, WorkerInfo } from '../store/store.js';
import { WORKER_STALE_MS } from './worker-heartbeat.js';
import { groupArg } from './limits.js';
import { DeadLetters, type ExportFilter, type FailedPage, type FailedQuery } from './dead-letters.js';
import { Job } from './job.js';
import { cancelOne } from './single-job-ops.js';
import { waitUntilFinished, type WaitOptions } from './wait-finished.js';
import { readMetrics, type QueueMetrics } from './metrics.js';

/** What the producer side of a queue reads: jobs, pages, counts, limits, workers (Queue, lib/engine/queue.ts, is the facade). */
export abstract class QueueReads<Data, Result> {
  protected readonly many: DeadLetters<Data, Result>;

  constructor(
    readonly name: string,
    protected readonly store: Store,
    /** The queue's maxPayloadBytes: the Jobs it returns refuse a larger updateData(). */
    protected readonly maxPayloadBytes: number,
  ) {
    this.many = new DeadLetters<Data, Result>(store, name, (id) => cancelOne(store, name, id), maxPayloadBytes);
  }

  /** A live handle on one job (its fields a snapshot of now), null for an unknown id. */
  async getJob(id: string): Promise<Job<Data, Result> | null> {
    const record = await this.store.getJob(this.name, id);
    return record && this.job(record);
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
    return records.filter((r): r is JobRecord => r !== null).map((r) => this.job(r));
  }

  getLogs(id: string): Promise<string[]> {
    return this.store.getLogs(this.name, id);
  }

  /** A page of dead letters, newest first, filtered by name, reason, error text and time (see docs/guide/retries.md). */
  getFailed(query?: FailedQuery): Promise<FailedPage<Data, Result>> {
    return this.many.getFailed(query);
  }

  /** Snapshots of every job in a state (oldest first), read a page at a time; see toNdjson() for files. */
  exportJobs(state: JobState, filter?: ExportFilter): AsyncGenerator<Job<Data, Result>> {
    return this.many.exportJobs(state, filter);
  }

  /** How many jobs of a state a filter (name; for failed also reason, error text, time) matches; getCounts()[state] without one. `upTo`: stop there (resolves upTo when at least that many match). */
  countJobs(state: JobState, filter?: ExportFilter, upTo?: number): Promise<number> {
    return this.many.count(state, filter, upTo);
  }

  /** Resolves with the job's result once it completed; rejects with JobFailedError, JobCancelledError or WaitTimeoutError. */
  waitFor(id: string, options?: WaitOptions): Promise<Result> {
    return waitUntilFinished<Result>(this.store, this.name, id, options);
  }

  getCounts(): Promise<JobCounts> {
    return this.store.getCounts(this.name);
  }

  /** Counts, oldest waiting age, delayed lag and the last hour's counters and handler durations per minute (lib/engine/metrics.ts). */
  getMetrics(): Promise<QueueMetrics> {
    return readMetrics(this.store, this.name);
  }

  isPaused(): Promise<boolean> {
    return this.store.isPaused(this.name);
  }

  /** Job names paused with pause({ names }). */
  pausedNames(): Promise<string[]> {
    return this.store.pausedNames(this.name);
  }

  getLimits(): Promise<QueueLimits> {
    return this.store.getLimits(this.name);
  }

  /** The global concurrency cap (setGlobalConcurrency), null when there is none. */
  async getGlobalConcurrency(): Promise<number | null> {
    return (await this.store.getLimits(this.name)).concurrency ?? null;
  }

  getGroup(group: string): Promise<GroupState> {
    return this.store.getGroup(this.name, groupArg(group));
  }

  /** Workers heard from in the last 15 s (lib/store/worker-registry), oldest started first. */
  getWorkers(): Promise<WorkerInfo[]> {
    return this.store.listWorkers(this.name, WORKER_STALE_MS);
  }

  /** Inconsistencies between the queue's indexes and job hashes; empty when sound. */
  verify(): Promise<string[]> {
    return this.store.verify(this.name);
  }

  private job(record: JobRecord): Job<Data, Result> {
    return new Job<Data, Result>(this.name, record, undefined, this.store, this.maxPayloadBytes);
  }
}
