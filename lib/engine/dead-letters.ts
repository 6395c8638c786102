import { clockOf } from '../store/clock.js';
import { JOB_STATES, type JobRecord, type JobState, type PageIndex, type Store } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import { Job } from './job.js';
import { assertKnownKeys, assertPlainObject, describe, nonNegativeNumber, positiveInteger } from './options.js';
import { decodeCursor, encodeCursor } from './page-cursor.js';
import {
  checkFilter, failedIndex, filterOf, ids, scopeOf, text, type BulkTarget, type CancelFilter, type CheckedFilter, type ExportFilter,
  type FailedFilter, type FailedPage, type FailedQuery, type FinishedState, type PromoteFilter, type PurgeOptions, type RedriveOptions,
} from './bulk-targets.js';

export type {
  BulkTarget, CancelFilter, DeadLetterReason, ExportFilter, FailedFilter, FailedPage, FailedQuery, FinishedState, PromoteFilter, PurgeOptions, RedriveOptions,
} from './bulk-targets.js';

const FINISHED: readonly FinishedState[] = ['completed', 'failed', 'cancelled'];
/** Ids per bulk script call, and entries a filtered scan examines per call: each call stays short. */
const BATCH = 500;
const SCAN_BUDGET = 1000;
/** Purge deletes several keys and writes an event per job: smaller steps keep each call near a few ms. */
const PURGE_BATCH = 100;

/**
 * Operations on many jobs for one queue: dead-letter pages, bulk re-drive,
 * purge, export, bulk cancel and promote. Every step is a bounded script
 * call; Queue delegates to it.
 */
export class DeadLetters<Data, Result> {
  constructor(
    private readonly store: Store,
    private readonly queue: string,
    private readonly cancelOne: (id: string) => Promise<'cancelled' | 'cancelling' | 'finished' | 'not-found'>,
    private readonly maxPayloadBytes?: number,
  ) {}

  private job(record: JobRecord): Job<Data, Result> {
    return new Job<Data, Result>(this.queue, record, undefined, this.store, this.maxPayloadBytes);
  }

  async getFailed(query: FailedQuery = {}): Promise<FailedPage<Data, Result>> {
    const f = checkFilter(query, 'getFailed() query', ['limit', 'cursor']);
    const limit = query.limit === undefined ? 50 : positiveInteger(query.limit, 'getFailed() query.limit', 1000);
    const scope = scopeOf(this.queue, 'failed', f);
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor, scope, 'getFailed() query.cursor');
    const page = await this.store.page(this.queue, {
      index: failedIndex(f),
      order: 'desc',
      ...(after && { after }),
      ...(f.min !== undefined && { min: f.min }),
      ...(f.max !== undefined && { max: f.max }),
      limit,
      budget: f.errorContains === undefined ? limit : Math.max(limit, SCAN_BUDGET),
      ...(f.errorContains !== undefined && { errorContains: f.errorContains }),
    });
    return {
      jobs: page.jobs.map((r) => this.job(r)),
      cursor: page.done || !page.last ? null : encodeCursor(scope, page.last),
    };
  }

  /** Ids of every job a filter matches, page by page (ids only), newest first for dead letters. */
  private async *matching(index: PageIndex, order: 'asc' | 'desc', f: CheckedFilter): AsyncGenerator<string[]> {
    let after: { id: string; score: number } | undefined;
    for (;;) {
      const page = await this.store.page(this.queue, {
        index,
        order,
        ...(after && { after }),
        ...(f.min !== undefined && { min: f.min }),
        ...(f.max !== undefined && { max: f.max }),
        limit: BATCH,
        budget: SCAN_BUDGET,
        ...(f.errorContains !== undefined && { errorContains: f.errorContains }),
        ...(f.name !== undefined && !('failedBy' in index) && { name: f.name }),
        idsOnly: true,
      });
      if (page.ids.length > 0) yield page.ids;
      if (page.done || !page.last) return;
      after = page.last;
    }
  }

  /**
   * failed -> waiting for the given dead letters, or for every one a filter
   * matches, in batches of 500 per script call. Jobs no longer failed are
   * skipped. Dead letters are walked newest first from where the call began,
   * so a job that dies again meanwhile is not re-driven twice by one call.
   */
  async redrive(target: BulkTarget<FailedFilter>, options: RedriveOptions = {}): Promise<number> {
    assertPlainObject(options, 'redrive() options');
    assertKnownKeys(options, ['resetAttempts', 'delay'], 'redrive() options');
    if (options.resetAttempts !== undefined && typeof options.resetAttempts !== 'boolean') {
      throw new InvalidArgumentError('redrive() options.resetAttempts', `must be a boolean, got ${describe(options.resetAttempts)}`);
    }
    const settings = {
      resetAttempts: options.resetAttempts ?? true,
      delay: Math.round(options.delay === undefined ? 0 : nonNegativeNumber(options.delay, 'redrive() options.delay')),
    };
    let moved = 0;
    const apply = async (batch: readonly string[]): Promise<void> => {
      const outcome = await this.store.redriveMany(this.queue, batch, settings);
      moved += outcome.moved;
    };
    if (Array.isArray(target)) {
      const list = ids(target, 'redrive() ids');
      for (let i = 0; i < list.length; i += BATCH) await apply(list.slice(i, i + BATCH));
      return moved;
    }
    const f = checkFilter(filterOf(target, 'redrive()'), 'redrive() filter');
    for await (const batch of this.matching(failedIndex(f), 'desc', f)) await apply(batch);
    return moved;
  }

  /** Deletes finished jobs, oldest first, in short script calls; returns how many. */
  async purge(state: FinishedState, options: PurgeOptions = {}): Promise<number> {
    if (!FINISHED.includes(state)) {
      throw new InvalidArgumentError('purge() state', `must be one of ${FINISHED.join(', ')}, got ${describe(state)}`, 'cancel or wait for jobs that are not finished');
    }
    assertPlainObject(options, 'purge() options');
    assertKnownKeys(options, ['olderThan', 'name', 'limit'], 'purge() options');
    const olderThan = options.olderThan === undefined ? undefined : nonNegativeNumber(options.olderThan, 'purge() options.olderThan');
    const name = options.name === undefined ? undefined : text(options.name, 'purge() options.name', 256);
    const limit = options.limit === undefined ? Infinity : positiveInteger(options.limit, 'purge() options.limit');
    // finishedAt is on the store's clock (an in-memory store's may run ahead of the system's).
    const finishedBefore = olderThan === undefined ? undefined : clockOf(this.store).now() - olderThan;
    let removed = 0;
    let cursor = '';
    while (removed < limit) {
      const step = await this.store.purge(this.queue, {
        state,
        ...(finishedBefore !== undefined && { finishedBefore }),
        ...(name !== undefined && { name }),
        batch: Math.min(PURGE_BATCH, limit - removed),
        budget: 2 * PURGE_BATCH,
        cursor,
      });
      removed += step.removed;
      cursor = step.cursor;
      if (step.done) break;
    }
    return removed;
  }

  /**
   * Every job in `state` (a filter narrows it), oldest first, as snapshots
   * read a page at a time: memory stays flat however many jobs there are.
   */
  async *exportJobs(state: JobState, filter: ExportFilter = {}): AsyncGenerator<Job<Data, Result>> {
    const f = checkFilter(filter, 'exportJobs() filter');
    if (state !== 'failed' && (f.reason !== undefined || f.errorContains !== undefined)) {
      throw new InvalidArgumentError('exportJobs() filter', `reason and errorContains apply to failed jobs, not ${state}`);
    }
    const index: PageIndex = state === 'failed' ? failedIndex(f) : { state };
    let after: { id: string; score: number } | undefined;
    for (;;) {
      const page = await this.store.page(this.queue, {
        index,
        order: 'asc',
        ...(after && { after }),
        ...(f.min !== undefined && { min: f.min }),
        ...(f.max !== undefined && { max: f.max }),
        limit: 100,
        budget: f.errorContains === undefined && (f.name === undefined || state === 'failed') ? 100 : SCAN_BUDGET,
        ...(f.errorContains !== undefined && { errorContains: f.errorContains }),
        ...(f.name !== undefined && state !== 'failed' && { name: f.name }),
      });
      for (const record of page.jobs) yield this.job(record);
      if (page.done || !page.last) return;
      after = page.last;
    }
  }

  /**
   * How many jobs of `state` a filter matches (the state's count without one),
   * by ids-only pages of bounded scans; with `upTo`, the scan stops once that
   * many matched (a filter on a big state then costs a few pages, not all of it).
   */
  async count(state: JobState, filter: ExportFilter = {}, upTo = Infinity): Promise<number> {
    if (!JOB_STATES.includes(state)) throw new InvalidArgumentError('countJobs() state', `must be one of ${JOB_STATES.join(', ')}, got ${describe(state)}`);
    const f = checkFilter(filter, 'countJobs() filter');
    if (state !== 'failed' && (f.reason !== undefined || f.errorContains !== undefined)) {
      throw new InvalidArgumentError('countJobs() filter', `reason and errorContains apply to failed jobs, not ${state}`);
    }
    if (Object.keys(f).length === 0) return (await this.store.getCounts(this.queue))[state];
    let n = 0;
    for await (const batch of this.matching(state === 'failed' ? failedIndex(f) : { state }, 'asc', f)) {
      n += batch.length;
      if (n >= upTo) return upTo;
    }
    return n;
  }

  /** Cancels the given jobs, or the waiting (ungrouped) or delayed jobs a filter names; returns how many were cancelled or asked to stop. */
  async cancel(target: BulkTarget<CancelFilter>): Promise<number> {
    let count = 0;
    const apply = async (batch: readonly string[]): Promise<void> => {
      const outcomes = await Promise.all(batch.map((id) => this.cancelOne(id)));
      count += outcomes.filter((o) => o === 'cancelled' || o === 'cancelling').length;
    };
    // Waiting jobs in one call per 100 (a listed job alone costs a scan of the list); the rest one by one.
    const together = this.store.cancelWaiting?.bind(this.store);
    const applyWaiting = async (batch: readonly string[]): Promise<void> => {
      if (!together) return apply(batch);
      const done = await together(this.queue, batch);
      count += done.filter(Boolean).length;
      // Not waiting (active, delayed, unknown, or moved since it was listed): on its own.
      await apply(batch.filter((_, k) => !done[k]));
    };
    if (Array.isArray(target)) {
      const list = ids(target, 'cancel() ids');
      for (let i = 0; i < list.length; i += 100) await applyWaiting(list.slice(i, i + 100));
      return count;
    }
    const raw = filterOf(target, 'cancel()');
    assertKnownKeys(raw, ['state', 'name'], 'cancel() filter');
    if (raw.state !== 'waiting' && raw.state !== 'delayed') {
      throw new InvalidArgumentError('cancel() filter.state', `must be 'waiting' or 'delayed', got ${describe(raw.state)}`, 'cancel active jobs by id');
    }
    const name = raw.name === undefined ? undefined : text(raw.name, 'cancel() filter.name', 256);
    for await (const batch of this.matching({ state: raw.state }, 'asc', name === undefined ? {} : { name })) {
      for (let i = 0; i < batch.length; i += 100) await (raw.state === 'waiting' ? applyWaiting : apply)(batch.slice(i, i + 100));
    }
    return count;
  }

  /** Runs delayed jobs now: the given ones, or every delayed job (of a name); returns how many moved. */
  async promote(target: BulkTarget<PromoteFilter>): Promise<number> {
    if (Array.isArray(target)) {
      const list = ids(target, 'promote() ids');
      let moved = 0;
      for (let i = 0; i < list.length; i += BATCH) moved += await this.store.promoteJobs(this.queue, list.slice(i, i + BATCH));
      return moved;
    }
    const raw = filterOf(target, 'promote()');
    assertKnownKeys(raw, ['name'], 'promote() filter');
    const name = raw.name === undefined ? undefined : text(raw.name, 'promote() filter.name', 256);
    let moved = 0;
    for await (const batch of this.matching({ state: 'delayed' }, 'asc', name === undefined ? {} : { name })) {
      moved += await this.store.promoteJobs(this.queue, batch);
    }
    return moved;
  }
}

/**
 * Snapshots as NDJSON lines (one JSON object and '\n' each), for files:
 * `await pipeline(Readable.from(toNdjson(queue.exportJobs('failed'))), createWriteStream('dead.ndjson'))`.
 */
export async function* toNdjson(items: AsyncIterable<unknown>): AsyncGenerator<string> {
  for await (const item of items) yield `${JSON.stringify(item)}\n`;
}
