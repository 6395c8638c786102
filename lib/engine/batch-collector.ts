import { BatchResultError, type Batch, type BatchHandler, type ResolvedBatchOptions } from './batch.js';
import type { ActiveJob } from './active-job.js';
import { toError } from './to-error.js';

/** A job waiting in a batch: its handler call settles when the batch is over. */
interface Entry<Data, Result> {
  readonly job: ActiveJob<Data, Result>;
  readonly resolve: (value: Result) => void;
  readonly reject: (error: Error) => void;
  failed?: Error;
}

/**
 * Turns a batch handler into a per-job handler. The worker runs each job as
 * usual (lease, attempts, timeout, outcome write, events, metrics); the job's
 * handler call waits here until `size` jobs are in or the first has waited
 * `maxWaitMs`, then the batch handler runs once for all of them and each
 * call settles with its job's result or error. At most `parallel` batches
 * run at once; jobs arriving meanwhile fill the next one.
 */
export class BatchCollector<Data, Result> {
  private pending: Entry<Data, Result>[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The oldest pending job has waited maxWaitMs: the next free runner takes what is there. */
  private due = false;
  private running = 0;

  constructor(
    private readonly handler: BatchHandler<Data, Result>,
    private readonly o: ResolvedBatchOptions,
    private readonly parallel: number,
  ) {}

  /** The per-job handler the worker runs. */
  readonly run = (job: ActiveJob<Data, Result>): Promise<Result> =>
    new Promise<Result>((resolve, reject) => {
      this.pending.push({ job, resolve, reject });
      this.next();
    });

  private next(): void {
    while (this.running < this.parallel && this.pending.length > 0 && (this.due || this.pending.length >= this.o.size || this.o.maxWaitMs === 0)) {
      this.flush();
    }
    if (this.pending.length === 0) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.due = false;
    } else if (!this.timer && !this.due) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.due = true;
        this.next();
      }, this.o.maxWaitMs);
    }
  }

  private flush(): void {
    const taken = this.pending.splice(0, this.o.size);
    // Jobs aborted while they waited (timeout, lease lost, shutdown) have their outcome already: not run.
    const live = taken.filter((e) => {
      if (!e.job.signal.aborted) return true;
      e.reject(toError(e.job.signal.reason));
      return false;
    });
    if (this.pending.length === 0) this.due = false;
    if (live.length === 0) return;
    this.running += 1;
    void this.execute(live).finally(() => {
      this.running -= 1;
      this.next();
    });
  }

  private async execute(entries: Entry<Data, Result>[]): Promise<void> {
    const byJob = new Map(entries.map((e) => [e.job, e]));
    const batch: Batch<Data, Result> = {
      fail: (job, error) => {
        const entry = byJob.get(job);
        if (entry && !entry.failed) entry.failed = toError(error);
      },
    };
    let results: readonly Result[] | void;
    try {
      results = await this.handler(entries.map((e) => e.job), batch);
    } catch (thrown) {
      const error = toError(thrown);
      for (const e of entries) e.reject(e.failed ?? error);
      return;
    }
    if (results !== undefined && (!Array.isArray(results) || results.length !== entries.length)) {
      const got = Array.isArray(results) ? `${results.length} results` : typeof results;
      const error = new BatchResultError(`the batch handler returned ${got} for a batch of ${entries.length} jobs: return one result per job, in their order, or nothing`);
      for (const e of entries) e.reject(e.failed ?? error);
      return;
    }
    entries.forEach((e, i) => (e.failed ? e.reject(e.failed) : e.resolve((results ? results[i] : null) as Result)));
  }
}
