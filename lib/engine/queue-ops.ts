import type { GroupLimits, JobState, QueueLimits } from '../store/store.js';
import { groupArg, groupLimits, pauseNames, queueLimits } from './limits.js';
import type { BulkTarget, CancelFilter, FailedFilter, FinishedState, PromoteFilter, PurgeOptions, RedriveOptions } from './dead-letters.js';
import { cancelOne, redriveOne, removeOne, type CancelResult } from './single-job-ops.js';
import { QueueActiveError } from './job-errors.js';
import { assertKnownKeys, assertPlainObject, describe, positiveInteger } from './options.js';
import { InvalidArgumentError } from './errors.js';
import { QueueReads } from './queue-reads.js';

/** Jobs per drain step: each is a few commands and at most two keys deleted, so a step stays near a few ms. */
const DRAIN_BATCH = 500;

export interface DrainOptions {
  /** Delayed jobs go too. Default false. */
  readonly delayed?: boolean;
}

export interface ObliterateOptions {
  /** Go on while jobs are active: their workers lose them (their completions are refused as lease lost). Default false. */
  readonly force?: boolean;
}

function flag(options: unknown, key: string, method: string): boolean {
  if (options === undefined) return false;
  assertPlainObject(options, `${method}() options`);
  assertKnownKeys(options, [key], `${method}() options`);
  const value = options[key];
  if (value !== undefined && typeof value !== 'boolean') throw new InvalidArgumentError(`${method}() options.${key}`, `must be a boolean, got ${describe(value)}`);
  return value === true;
}

/** What the producer side of a queue changes: jobs by id or filter, housekeeping, pauses and limits (Queue is the facade). */
export abstract class QueueOps<Data, Result> extends QueueReads<Data, Result> {
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

  /** Deletes completed, failed or cancelled jobs in short batches; resolves how many. */
  purge(state: FinishedState, options?: PurgeOptions): Promise<number> {
    return this.many.purge(state, options);
  }

  /** Runs delayed jobs now: these ids, or every delayed job (of a name). Resolves how many moved. */
  promote(target: BulkTarget<PromoteFilter>): Promise<number> {
    return this.many.promote(target);
  }

  /**
   * Deletes a finished job (completed, failed or cancelled) with its logs.
   * Resolves false for an unknown id; throws JobNotFinishedError for a job
   * still waiting or running, ChildrenPendingError for a flow parent whose
   * children are not all finished. (job.remove() also takes waiting and delayed jobs.)
   */
  remove(id: string): Promise<boolean> {
    return removeOne(this.store, this.name, id);
  }

  /**
   * Removes every waiting job (with `{ delayed: true }`, or `true` as in
   * BullMQ, the delayed ones too) in short steps; active and finished jobs,
   * and flow parents waiting for children, stay. A flow child is cancelled
   * instead, so its parent hears. Resolves how many jobs went.
   */
  async drain(options?: DrainOptions | boolean): Promise<number> {
    const delayed = typeof options === 'boolean' ? options : flag(options, 'delayed', 'drain');
    let removed = 0;
    let cursor = '';
    for (;;) {
      const step = await this.store.drain(this.name, { delayed, batch: DRAIN_BATCH, cursor });
      removed += step.removed;
      if (step.done) return removed;
      cursor = step.cursor;
    }
  }

  /**
   * Deletes the queue and everything under it: jobs in every state, logs,
   * flow bookkeeping, schedulers, events, metrics, the workers list, dedup
   * and once records, limits and pauses; in short steps (no single call
   * holds Redis for long). QueueActiveError while jobs are active, unless
   * `{ force: true }`. Stop producers and close workers first: a job added
   * meanwhile may outlive it.
   */
  async obliterate(options?: ObliterateOptions): Promise<void> {
    const outcome = await this.store.obliterate(this.name, flag(options, 'force', 'obliterate'));
    if (outcome.status === 'active') throw new QueueActiveError(this.name, outcome.active);
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

  /**
   * Sets limits every producer and worker of this queue honours, kept in
   * Redis: rateLimit (starts per window, whole queue), concurrency (jobs
   * active at once, whole queue), groupConcurrency and groupRateLimit
   * (defaults per group), maxWaiting and maxWaitingPerGroup (add() past
   * them throws QueueFullError). null removes a limit; an absent key leaves it.
   */
  async configure(limits: QueueLimits): Promise<void> {
    await this.store.configure(this.name, queueLimits(limits));
  }

  /** At most `concurrency` jobs of this queue active at once, across every worker and process (configure({ concurrency })). */
  async setGlobalConcurrency(concurrency: number): Promise<void> {
    await this.store.configure(this.name, { concurrency: positiveInteger(concurrency, 'setGlobalConcurrency() concurrency') });
  }

  /** No global cap: each worker's own concurrency is the only bound. */
  async removeGlobalConcurrency(): Promise<void> {
    await this.store.configure(this.name, { concurrency: null });
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
}
