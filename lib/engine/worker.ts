import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { OwnershipMessage, SchedMessage, Unsubscribe } from '../notify/notify-adapter.js';
import type { ExtendOutcome, JobRecord, Lease, ReapOutcome } from '../store/store.js';
import { Claimer } from './claimer.js';
import { CorruptJobError, InvalidArgumentError, JobCancelledError, LeaseLostError, RateLimitedError, StoredPayloadTooLargeError, WorkerClosingError } from './errors.js';
import type { WorkerEvents } from './events.js';
import { HeldJob } from './held-job.js';
import type { ActiveJob, LeaseWriter } from './job.js';
import { encodeJson } from './json.js';
import { LeaseKeeper } from './lease-keeper.js';
import { NameCaps } from './name-caps.js';
import { validateQueueName } from './names.js';
import { encodeResult, failureOf } from './outcome.js';
import { persist } from './persist.js';
import { Promoter } from './promoter.js';
import { Reaper } from './reaper.js';
import { toError } from './to-error.js';
import { TurnPacer } from './turn-pacer.js';
import { runHandler } from './run-handler.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './worker-options.js';
import { describe } from './options.js';
import { isNetworkError } from '../store/outage-log.js';
import { logFailure, plural, seconds } from './failure-log.js';

/** Runs one job; what it returns is stored as the job's result (JSON). */
export type Handler<Data = unknown, Result = unknown> = (job: ActiveJob<Data, Result>) => Promise<Result> | Result;

type Outcome<Result> = { readonly ok: true; readonly value: Result } | { readonly ok: false; readonly error: Error };

/**
 * A pool running one queue's jobs: claims in batches, completes and claims the
 * next in one call, renews all its leases in one call, reaps expired leases of
 * dead workers, promotes delayed jobs on time, and wakes on pub/sub hints.
 *
 * @example
 * const worker = new Worker('emails', async (job) => send(job.data), { store, concurrency: 10 });
 * worker.on('failed', (job, err) => log(job.id, err));
 * await worker.close();
 */
export class Worker<Data = unknown, Result = unknown> extends EventEmitter<WorkerEvents<Data, Result>> {
  readonly id: string;
  readonly queueName: string;
  private readonly o: ResolvedWorkerOptions;
  private readonly held = new Map<string, HeldJob<Data, Result>>();
  /** Claimed jobs waiting for their name to drop under its cap (two claims raced). */
  private readonly parked: HeldJob<Data, Result>[] = [];
  private readonly caps: NameCaps;
  private readonly claimer: Claimer;
  private readonly leaseKeeper: LeaseKeeper;
  private readonly reaper: Reaper;
  private readonly promoter: Promoter;
  /** Handlers start one per event-loop turn (see TurnPacer for why). */
  private readonly pacer = new TurnPacer();
  private state: 'new' | 'running' | 'closing' | 'closed' = 'new';
  private busySinceDrained = false;
  /** Past the shutdown timeout: stop retrying writes. */
  private forced = false;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: Unsubscribe[] = [];
  private offReconnect: (() => void) | undefined;
  private startup: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private emptied: (() => void) | undefined;

  constructor(queueName: string, private readonly handler: Handler<Data, Result>, options: WorkerOptions) {
    super();
    this.queueName = validateQueueName(queueName, 'Worker queue name');
    if (typeof handler !== 'function') throw new InvalidArgumentError('Worker handler', `must be a function (job) => result, got ${describe(handler)}`);
    this.o = resolveWorkerOptions(options);
    this.id = `${process.pid.toString(36)}-${randomBytes(4).toString('hex')}`;
    const { store } = this.o;
    const queue = this.queueName;
    this.caps = new NameCaps(this.o.nameConcurrency);
    this.claimer = new Claimer({
      store,
      queue,
      workerId: this.id,
      lockMs: this.o.lockDuration,
      batch: this.o.claimBatch,
      capacity: () => this.o.concurrency - this.held.size,
      nameRoom: () => this.caps.room(),
      onClaimed: (records) => records.forEach((r) => this.take(r)),
      onEmpty: () => this.checkDrained(),
      report: (err, context) => this.report(err, context),
    });
    this.leaseKeeper = new LeaseKeeper({
      store,
      queue,
      lockMs: this.o.lockDuration,
      renewMs: this.o.lockRenewTime,
      held: () => [...this.held.values()].filter((h) => !h.lost).map((h) => h.lease),
      onOutcome: (lease, outcome) => this.onLeaseOutcome(lease, outcome),
      onError: (err, since) => this.onRenewFailure(err, since),
    });
    this.reaper = new Reaper({
      store,
      queue,
      intervalMs: this.o.stalledInterval,
      maxStalledCount: this.o.maxStalledCount,
      onReaped: (outcomes) => this.onReaped(outcomes),
      onError: (err) => this.report(err, 'reaping expired leases failed'),
    });
    this.promoter = new Promoter({ store, queue, onError: (err) => this.report(err, 'promoting delayed jobs failed') });
    if (this.o.autorun) void this.run().catch((err) => this.report(err, 'the worker could not start'));
  }

  /** Starts the worker (autorun does it for you). Resolves once it listens for work. */
  run(): Promise<void> {
    this.startup ??= this.start();
    return this.startup;
  }

  /** Jobs held right now (running, or parked behind their name's cap). */
  get activeCount(): number {
    return this.held.size;
  }

  get isRunning(): boolean {
    return this.state === 'running';
  }

  /**
   * Stops claiming, lets running jobs finish for up to `timeout` ms (default:
   * shutdownTimeout), then aborts the rest (job.signal, WorkerClosingError) and
   * hands them back to waiting without counting the attempt. No job is left active.
   */
  close(options: { readonly timeout?: number } = {}): Promise<void> {
    this.closing ??= this.shutdown(options.timeout ?? this.o.shutdownTimeout);
    return this.closing;
  }

  private async start(): Promise<void> {
    if (this.state !== 'new') return;
    this.state = 'running';
    const { notify } = this.o.store;
    if (this.o.limiter !== undefined) await this.o.store.configure(this.queueName, { rateLimit: this.o.limiter });
    // Listen before the first claim, so no wake-up falls between the two.
    this.unsubscribe.push(await notify.onScheduled((m) => this.onSched(m)));
    this.unsubscribe.push(await notify.onOwnershipLost((m) => this.onOwnershipLost(m)));
    this.offReconnect = notify.onReconnect(() => {
      // Messages sent while the subscription was down are lost: look for work ourselves.
      this.promoter.arm(0);
      this.claimer.look();
    });
    if (this.state !== 'running') return;
    this.leaseKeeper.start();
    this.reaper.start();
    this.promoter.start();
    this.pollTimer = setInterval(() => {
      if (this.claimer.free() > 0) this.claimer.fill();
    }, this.o.pollInterval);
    this.claimer.start();
  }

  private onSched(message: SchedMessage): void {
    if (message.queue !== this.queueName || this.state !== 'running') return;
    if (message.kind === 'delayed') this.promoter.arm(message.dueIn);
    else this.claimer.wake();
  }

  private onOwnershipLost(message: OwnershipMessage): void {
    if (message.queue !== this.queueName) return;
    const held = this.held.get(message.id);
    if (!held || held.lease.token !== message.token) return;
    if (message.kind === 'cancel') {
      held.abort(new JobCancelledError(message.id));
    } else {
      held.lost = true;
      held.abort(new LeaseLostError(message.id));
    }
  }

  private onLeaseOutcome(lease: Lease, outcome: ExtendOutcome): void {
    const held = this.held.get(lease.id);
    if (!held || held.lease.token !== lease.token) return;
    if (outcome === 'lost') {
      held.lost = true;
      held.abort(new LeaseLostError(lease.id));
    } else if (outcome === 'cancel-requested') {
      held.abort(new JobCancelledError(lease.id));
    }
  }

  private onRenewFailure(err: unknown, since: number): void {
    this.report(err, 'renewing leases failed');
    if (since <= this.o.lockDuration) return;
    // Past the lease we cannot prove we still hold these jobs: tell the handlers.
    for (const held of this.held.values()) {
      held.abort(new LeaseLostError(held.job.id, `the lease (not renewed for ${since} ms)`));
    }
  }

  private onReaped(outcomes: readonly ReapOutcome[]): void {
    for (const { id, state } of outcomes) this.safeEmit('stalled', id, state);
  }

  /** A claimed job: run it, park it behind its name's cap, or hand it back when closing. */
  private take(record: JobRecord): void {
    const held = new HeldJob<Data, Result>(this.queueName, record, (lease) => this.writer(lease), this.o.store);
    this.held.set(record.id, held);
    this.caps.taken(held.job.name);
    this.busySinceDrained = true;
    if (this.state !== 'running') void this.handBack(held);
    else if (this.caps.atCap(held.job.name)) this.parked.push(held);
    else this.begin(held);
  }

  private begin(held: HeldJob<Data, Result>): void {
    const { job } = held;
    held.started = true;
    this.caps.started(job.name);
    this.safeEmit('active', job);
    if (held.payloadBytes > this.o.maxPayloadBytes) {
      void this.finish(held, { ok: false, error: new StoredPayloadTooLargeError(held.payloadBytes, this.o.maxPayloadBytes) });
      return;
    }
    if (job.corruption) {
      void this.finish(held, { ok: false, error: new CorruptJobError(`job ${job.id} cannot be decoded: ${job.corruption}`) });
      return;
    }
    held.armTimer((error) => {
      if (held.finishing) return;
      held.abort(error);
      void this.finish(held, { ok: false, error });
    });
    this.pacer.run(() => void this.execute(held));
  }

  private async execute(held: HeldJob<Data, Result>): Promise<void> {
    // Handed back (shutdown) or timed out while waiting for its turn: never run it.
    if (held.finishing) return;
    let outcome: Outcome<Result>;
    try {
      outcome = { ok: true, value: await runHandler(this.queueName, held, this.handler) };
    } catch (thrown) {
      outcome = { ok: false, error: toError(thrown) };
    }
    if (!held.finishing) await this.finish(held, outcome);
  }

  private finish(held: HeldJob<Data, Result>, outcome: Outcome<Result>): Promise<void> {
    held.finishing = true;
    held.clearTimer();
    held.writing = this.write(held, outcome).catch((err) => {
      this.report(err, `recording the outcome of job ${held.job.id} failed`);
      this.freeSlot(held);
    });
    return held.writing;
  }

  private async write(held: HeldJob<Data, Result>, outcome: Outcome<Result>): Promise<void> {
    if (held.lost) {
      this.freeSlot(held);
      this.report(new LeaseLostError(held.job.id, 'the result'), 'a reaped job finished late');
      return;
    }
    if (!outcome.ok) return this.writeFailure(held, outcome.error);
    const encoded = encodeResult(outcome.value);
    if (!encoded.ok) return this.writeFailure(held, encoded.error);
    return this.writeCompletion(held, encoded.json, outcome.value);
  }

  private async writeCompletion(held: HeldJob<Data, Result>, result: string, value: Result): Promise<void> {
    const { job, lease } = held;
    this.endRun(held);
    // Complete and claim this slot's next job in one call, unless the queue looked empty.
    const fetch = this.claimer.nextFetch(this.state === 'running', this.caps.room(job.name));
    const reply = await this.persist(() => this.o.store.complete(this.queueName, lease, result, fetch, held.ranMs));
    this.freeSlot(held, false);
    if (reply.status === 'completed' || (reply.status === 'already' && reply.state === 'completed')) {
      this.safeEmit('completed', job, value);
    } else if (reply.status === 'cancelled' || reply.status === 'already') {
      this.safeEmit('cancelled', job);
    } else {
      this.report(new LeaseLostError(job.id, 'the result'), 'a job finished after losing its lease');
    }
    this.claimer.claimedWithCompletion(fetch, reply);
    this.slotFreed();
  }

  private async writeFailure(held: HeldJob<Data, Result>, error: Error): Promise<void> {
    if (error instanceof RateLimitedError) return this.writeThrottle(held, error);
    const { job, lease } = held;
    const failure = failureOf(job, error, this.o.backoffStrategy);
    const reply = await this.persist(() => this.o.store.fail(this.queueName, lease, failure));
    this.freeSlot(held, false);
    if (reply.status === 'lost') {
      this.report(new LeaseLostError(job.id, 'the failure'), 'a job failed after losing its lease');
    } else if (reply.state === 'cancelled') {
      this.safeEmit('cancelled', job);
    } else {
      if (reply.state === 'delayed') this.promoter.arm(failure.retryDelay);
      this.safeEmit('failed', job, error, reply.state === 'failed' ? 'dead' : 'retry');
      logFailure(this.o.logger, this.o.logFailures, this.queueName, job, failure, reply.state === 'failed');
    }
    this.slotFreed();
  }

  /**
   * The downstream said "too many": the job goes back to delayed without
   * spending its attempt, and the whole queue starts nothing until then.
   */
  private async writeThrottle(held: HeldJob<Data, Result>, error: RateLimitedError): Promise<void> {
    const { job, lease } = held;
    const reply = await this.persist(() => this.o.store.throttle(this.queueName, lease, error.retryAfter));
    this.freeSlot(held, false);
    if (reply.status === 'lost') {
      this.report(new LeaseLostError(job.id, 'the throttle'), 'a job was throttled after losing its lease');
    } else if (reply.state === 'cancelled') {
      this.safeEmit('cancelled', job);
    } else {
      this.promoter.arm(error.retryAfter);
      this.claimer.waitFor(error.retryAfter);
      this.safeEmit('rateLimited', job, error.retryAfter);
    }
    this.slotFreed();
  }

  /**
   * The handler's run is over: a parked job of its name may start, and a
   * name that was at its cap can be claimed again.
   */
  private endRun(held: HeldJob<Data, Result>): void {
    if (!held.started) return;
    held.started = false;
    const name = held.job.name;
    if (!this.caps.ended(name)) return;
    const next = this.parked.findIndex((p) => p.job.name === name);
    if (next >= 0 && this.state === 'running') this.begin(this.parked.splice(next, 1)[0]!);
    else this.claimer.capReopened();
  }

  /** Frees the job's local slot (the store's release hands a job back to Redis: a different thing). */
  private freeSlot(held: HeldJob<Data, Result>, refill = true): void {
    held.clearTimer();
    this.endRun(held);
    const parkedAt = this.parked.indexOf(held);
    if (parkedAt >= 0) this.parked.splice(parkedAt, 1);
    if (this.held.get(held.job.id) === held) {
      this.held.delete(held.job.id);
      this.caps.dropped(held.job.name);
    }
    if (refill) this.slotFreed();
  }

  private slotFreed(): void {
    if (this.held.size === 0) this.emptied?.();
    if (this.state === 'running') this.claimer.slotFreed();
  }

  /** 'drained' once the queue is empty and the last job of this worker is done. */
  private checkDrained(): void {
    if (this.claimer.isIdle && this.busySinceDrained && this.held.size === 0) {
      this.busySinceDrained = false;
      this.safeEmit('drained');
    }
  }

  private persist<T>(call: () => Promise<T>): Promise<T> {
    return persist(call, {
      giveUp: () => this.forced,
      onRetry: (err, attempt) => {
        if (attempt === 1) this.report(err, 'a write to Redis failed; retrying until it answers');
      },
    });
  }

  private writer(lease: Lease): LeaseWriter {
    const { store } = this.o;
    return {
      progress: async (value) => {
        const ok = await store.progress(this.queueName, lease, encodeJson(value, 'progress'));
        if (!ok) throw new LeaseLostError(lease.id, 'the progress');
        const held = this.held.get(lease.id);
        if (held) this.safeEmit('progress', held.job, value);
      },
      log: async (line) => {
        const kept = await store.log(this.queueName, lease, String(line), this.o.keepLogs);
        if (kept === null) throw new LeaseLostError(lease.id, 'the log line');
      },
      recalled: (key) => store.getOnce(this.queueName, key),
      remember: (key, outcome, ttlMs) => store.setOnce(this.queueName, key, outcome, ttlMs),
    };
  }

  /** Shutdown: abort the job and give it back to waiting, attempt not counted. */
  private async handBack(held: HeldJob<Data, Result>): Promise<void> {
    if (held.finishing) {
      await held.writing;
      return;
    }
    held.finishing = true;
    held.abort(new WorkerClosingError(held.job.id));
    try {
      await this.o.store.release(this.queueName, held.lease);
    } catch (err) {
      this.report(err, `handing job ${held.job.id} back failed; it returns to waiting when its lease expires`);
    }
    this.freeSlot(held, false);
  }

  private async shutdown(timeout: number): Promise<void> {
    const started = this.state !== 'new';
    this.state = 'closing';
    // Ordered steps, each guarded so one failure does not skip the rest.
    const step = async (what: string, action: () => unknown): Promise<void> => {
      try {
        await action();
      } catch (err) {
        this.report(err, `shutdown step "${what}" failed`);
      }
    };
    if (started) {
      await step('wait for startup', () => this.startup);
      await step('stop claiming', () => {
        this.claimer.stop();
        clearInterval(this.pollTimer);
        this.promoter.stop();
        this.reaper.stop();
      });
      await step('wait for claims in flight', () => this.claimer.settled());
      if (this.held.size > 0) this.o.logger.log(`worker ${this.id} closing: waiting up to ${seconds(timeout)} for ${plural(this.held.size, 'running job')} of queue "${this.queueName}"`);
      await step('let running jobs finish', () => this.waitEmpty(timeout));
      this.forced = true;
      if (this.held.size > 0) this.o.logger.warn(`worker ${this.id} closing: ${plural(this.held.size, 'job')} of queue "${this.queueName}" still running after ${seconds(timeout)}; aborting them and handing them back to waiting`);
      await step('hand back the rest', () => Promise.all([...this.held.values()].map((h) => this.handBack(h))));
      await step('stop renewing leases', () => this.leaseKeeper.stop());
      await step('unsubscribe', () => Promise.all(this.unsubscribe.map((off) => off())));
      this.offReconnect?.();
    }
    this.state = 'closed';
    this.safeEmit('closed');
  }

  private waitEmpty(timeout: number): Promise<void> {
    if (this.held.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.emptied = undefined;
        resolve();
      };
      const timer = setTimeout(done, timeout);
      this.emptied = done;
    });
  }

  private report(err: unknown, context: string): void {
    const error = err instanceof Error ? err : new Error(String(err));
    if (this.listenerCount('error') > 0) this.safeEmit('error', error);
    else if (this.o.store.outage && isNetworkError(error)) this.o.store.outage.failed(context, error, this.queueName);
    else this.o.logger.error(`worker ${this.id} on queue "${this.queueName}": ${context}`, error);
  }

  /** Emits without letting a throwing listener break the worker. */
  private safeEmit<K extends keyof WorkerEvents<Data, Result>>(event: K, ...args: WorkerEvents<Data, Result>[K]): void {
    try {
      (this.emit as (event: K, ...args: WorkerEvents<Data, Result>[K]) => boolean)(event, ...args);
    } catch (err) {
      this.o.logger.error(`a "${String(event)}" listener of worker ${this.id} threw`, err);
    }
  }
}
