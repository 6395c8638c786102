import type { ResolvedWorkerOptions } from './worker-options.js';
import type { Claimer } from './claimer.js';
import { DelayedError, LeaseLostError, RateLimitedError } from './errors.js';
import type { WorkerEvents } from './events.js';
import { logFailure } from './failure-log.js';
import type { HeldJob } from './held-job.js';
import { encodeResult, failureOf } from './outcome.js';
import { MAX_WRITE_BATCH, type Prefetch } from './prefetch.js';
import type { Promoter } from './promoter.js';
import type { Slots } from './slots.js';
import { WriteBatcher } from './write-batcher.js';

/** How a handler's run ended. */
export type Outcome<Result> = { readonly ok: true; readonly value: Result } | { readonly ok: false; readonly error: Error };

/** A job whose handler returned, waiting for its completion to be written. */
interface Finished<Data, Result> {
  readonly held: HeldJob<Data, Result>;
  readonly result: string;
  readonly value: Result;
}

/** What the outcome writes touch in their worker (lib/engine/worker.ts). */
export interface OutcomeHost<Data, Result> {
  readonly queueName: string;
  readonly options: ResolvedWorkerOptions;
  readonly claimer: Claimer;
  readonly slots: Slots<Data, Result>;
  readonly prefetch: Prefetch;
  readonly promoter: Promoter;
  /** False once the worker is closing: completions claim no next jobs. */
  running(): boolean;
  /** Retries a write until Redis answers (or the shutdown gives up). */
  persist<T>(call: () => Promise<T>): Promise<T>;
  /** Frees the job's slot; `refill` false: the caller claims for it (slotFreed) once its reply is taken. */
  freeSlot(held: HeldJob<Data, Result>, refill?: boolean): void;
  slotFreed(): void;
  emit<K extends keyof WorkerEvents<Data, Result>>(event: K, ...args: WorkerEvents<Data, Result>[K]): void;
  report(err: unknown, context: string): void;
}

/**
 * Writes what became of each job a worker ran. Completions go together: the
 * ones that finish while a write is out share the next call (WriteBatcher,
 * at most MAX_WRITE_BATCH), which also claims their slots' next jobs and
 * tops up the reserve. A failure or a throttle is one call of its own.
 * Every write is checked against the job's own lease token in Redis.
 */
export class OutcomeWriter<Data, Result> {
  private readonly completions: WriteBatcher<Finished<Data, Result>>;

  constructor(private readonly w: OutcomeHost<Data, Result>) {
    this.completions = new WriteBatcher(() => w.prefetch.writesInFlight(), (batch) => this.writeCompletions(batch), MAX_WRITE_BATCH);
  }

  async write(held: HeldJob<Data, Result>, outcome: Outcome<Result>): Promise<void> {
    if (held.lost) {
      this.w.freeSlot(held);
      this.w.report(new LeaseLostError(held.job.id, 'the result'), 'a reaped job finished late');
      return;
    }
    if (!outcome.ok) return this.writeFailure(held, outcome.error);
    const encoded = encodeResult(outcome.value);
    if (!encoded.ok) return this.writeFailure(held, encoded.error);
    return this.writeCompletion(held, encoded.json, outcome.value);
  }

  /** Queued for the next completion write (WriteBatcher): jobs finishing while a write is out go together. */
  private writeCompletion(held: HeldJob<Data, Result>, result: string, value: Result): Promise<void> {
    return this.completions.push({ held, result, value });
  }

  /** Completes a batch and claims its slots' next jobs in one call; each job's token is checked on its own. */
  private async writeCompletions(batch: readonly Finished<Data, Result>[]): Promise<void> {
    // The batch's slots, and what the reserve lacks: only a busy worker (one completing jobs) claims for a reserve.
    const topUp = this.w.prefetch.topUp(this.w.claimer.free());
    const fetch = this.w.claimer.nextFetch(this.w.running(), batch.length + topUp, this.w.slots.room(batch.map((d) => d.held.job.name)), batch.length);
    const completions = batch.map(({ held, result }) => ({ lease: held.lease, result, durationMs: held.ranMs }));
    const reply = await this.w.persist(() => this.w.options.store.completeMany(this.w.queueName, completions, fetch)).finally(() => this.w.prefetch.toppedUp(topUp));
    batch.forEach(({ held, value }, i) => {
      this.w.freeSlot(held, false);
      const s = reply.statuses[i]!;
      const { job } = held;
      if (s.status === 'completed' || (s.status === 'already' && s.state === 'completed')) this.w.emit('completed', job, value);
      else if (s.status === 'cancelled' || s.status === 'already') this.w.emit('cancelled', job);
      else this.w.report(new LeaseLostError(job.id, 'the result'), 'a job finished after losing its lease');
    });
    this.w.claimer.claimedWithCompletion(fetch, reply);
    this.w.slotFreed();
  }

  private async writeFailure(held: HeldJob<Data, Result>, error: Error): Promise<void> {
    if (error instanceof RateLimitedError) return this.writeThrottle(held, error.retryAfter, true);
    if (error instanceof DelayedError) return this.writeThrottle(held, error.delay, false);
    const { job, lease } = held;
    const failure = failureOf(job, error, this.w.options.backoffStrategy);
    const reply = await this.w.persist(() => this.w.options.store.fail(this.w.queueName, lease, failure));
    this.w.freeSlot(held, false);
    if (reply.status === 'lost') {
      this.w.report(new LeaseLostError(job.id, 'the failure'), 'a job failed after losing its lease');
    } else if (reply.state === 'cancelled') {
      this.w.emit('cancelled', job);
    } else {
      if (reply.state === 'delayed') this.w.promoter.arm(failure.retryDelay);
      this.w.emit('failed', job, error, reply.state === 'failed' ? 'dead' : 'retry');
      logFailure(this.w.options.logger, this.w.options.logFailures, this.w.queueName, job, failure, reply.state === 'failed');
    }
    this.w.slotFreed();
  }

  /**
   * The job goes back to delayed for `wait` ms without spending its attempt:
   * the downstream said "too many" (RateLimitedError: the whole queue starts
   * nothing until then either), or the handler asked to run it later
   * (DelayedError: only this job waits).
   */
  private async writeThrottle(held: HeldJob<Data, Result>, wait: number, wholeQueue: boolean): Promise<void> {
    const { job, lease } = held;
    const reply = await this.w.persist(() => this.w.options.store.throttle(this.w.queueName, lease, wait, wholeQueue));
    this.w.freeSlot(held, false);
    if (reply.status === 'lost') {
      this.w.report(new LeaseLostError(job.id, 'the delay'), 'a job was delayed after losing its lease');
    } else if (reply.state === 'cancelled') {
      this.w.emit('cancelled', job);
    } else {
      this.w.promoter.arm(wait);
      if (wholeQueue) {
        this.w.claimer.waitFor(wait);
        this.w.emit('rateLimited', job, wait);
      } else {
        this.w.emit('delayed', job, wait);
      }
    }
    this.w.slotFreed();
  }
}
