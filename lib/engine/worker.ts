import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { JobRecord, Lease } from '../store/store.js';
import { Claimer } from './claimer.js';
import { CorruptJobError, StoredPayloadTooLargeError } from './errors.js';
import type { WorkerEvents } from './events.js';
import { HeldJob } from './held-job.js';
import type { ActiveJob } from './active-job.js';
import { leaseWriter } from './lease-writer.js';
import { validateQueueName } from './names.js';
import { persist } from './persist.js';
import { Slots } from './slots.js';
import { toError } from './to-error.js';
import { TurnPacer } from './turn-pacer.js';
import { Upkeep } from './upkeep.js';
import { OutcomeWriter, type Outcome } from './outcome-writer.js';
import { Prefetch } from './prefetch.js';
import { closeWorker, handBack } from './worker-close.js';
import { WorkerPause, type PauseOptions } from './worker-pause.js';
import { CloseLedger, type WorkerCloseResult } from './close-ledger.js';
import { runHandler } from './run-handler.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './worker-options.js';
import { storeFor } from './shards.js';
import { isNetworkError } from '../store/outage-log.js';
import { workerHandler, type Handler, type WorkerHandler } from './worker-handler.js';
import type { BatchHandler, BatchOptions } from './batch.js';

export type { Handler } from './worker-handler.js';

/**
 * A pool running one queue's jobs: claims in batches, completes and claims the
 * next in one call, renews all its leases in one call, reaps expired leases of
 * dead workers, promotes delayed jobs on time, and wakes on pub/sub hints.
 * The handler is a function, or the path or file: URL of a handler module
 * run in worker threads or child processes (options.sandbox).
 *
 * @example
 * const worker = new Worker('emails', async (job) => send(job.data), { store, concurrency: 10 });
 * const images = new Worker('images', join(__dirname, 'resize.js'), { store, concurrency: 4 });
 * worker.on('failed', (job, err) => log(job.id, err));
 * await worker.close();
 */
export class Worker<Data = unknown, Result = unknown> extends EventEmitter<WorkerEvents<Data, Result>> {
  readonly id: string;
  readonly queueName: string;
  private readonly o: ResolvedWorkerOptions;
  private readonly slots: Slots<Data, Result>;
  private readonly claimer: Claimer;
  /** Leases, reaping, promotion, polling and the messages that wake the worker. */
  private readonly upkeep: Upkeep<Data, Result>;
  /** Handlers start one per event-loop turn unless a reserve is held (see TurnPacer for why). */
  private readonly pacer = new TurnPacer(() => this.prefetch.reserve() === 0);
  /** Writes what became of each job: completions together, failures and throttles one by one. */
  private readonly outcomes: OutcomeWriter<Data, Result>;
  /** Jobs held in reserve beyond the running ones, and completion writes out at once (see Prefetch). */
  private readonly prefetch: Prefetch;
  /** worker.pause() / resume(): this worker alone stops claiming. */
  private readonly pauser: WorkerPause<Data, Result>;
  /** The handler function, or the sandbox pool running the handler file. */
  private readonly handler: WorkerHandler<Data, Result>;
  private state: 'new' | 'running' | 'closing' | 'closed' = 'new';
  private busySinceDrained = false;
  /** Past the shutdown timeout: stop retrying writes. */
  private forced = false;
  private startup: Promise<void> | undefined;
  private closing: Promise<WorkerCloseResult> | undefined;
  /** Every outcome and hand-back write, so close() waits for each and says which landed. */
  private readonly ledger = new CloseLedger();

  /** With options.batch: a batch handler, (jobs, batch) => one result per job. */
  constructor(queueName: string, handler: BatchHandler<Data, Result>, options: WorkerOptions & { readonly batch: BatchOptions });
  /** A handler function, or the path or file: URL of a handler module (sandboxed). */
  constructor(queueName: string, handler: Handler<Data, Result> | string | URL, options: WorkerOptions);
  constructor(queueName: string, handler: Handler<Data, Result> | BatchHandler<Data, Result> | string | URL, options: WorkerOptions) {
    super();
    this.queueName = validateQueueName(queueName, 'Worker queue name', "new Worker('emails', handler, { store })");
    const resolved = resolveWorkerOptions(options);
    this.o = { ...resolved, store: storeFor(resolved.store, this.queueName, options.shards, 'Worker options.shards') };
    this.handler = workerHandler<Data, Result>(this.queueName, handler, this.o, (err, context) => this.report(err, context));
    this.prefetch = new Prefetch(this.o.concurrency, this.o.prefetch);
    this.id = `${process.pid.toString(36)}-${randomBytes(4).toString('hex')}`;
    const { store } = this.o;
    const queue = this.queueName;
    this.slots = new Slots(this.o.nameConcurrency, this.o.concurrency);
    this.claimer = new Claimer({
      store,
      queue,
      workerId: this.id,
      lockMs: this.o.lockDuration,
      batch: this.o.claimBatch,
      pushable: () => this.upkeep.pushable && !this.pauser.isPaused,
      // Claims of their own fill running slots only; the reserve is topped up by completions' claims (OutcomeWriter).
      capacity: () => this.o.concurrency - this.slots.size,
      nameRoom: () => this.slots.room(),
      onClaimed: (records) => records.forEach((r) => this.take(r)),
      onEmpty: () => this.checkDrained(),
      report: (err, context) => this.report(err, context),
    });
    this.upkeep = new Upkeep({
      queue,
      workerId: this.id,
      options: this.o,
      claimer: this.claimer,
      slots: this.slots,
      running: () => this.state === 'running',
      paused: () => this.pauser.isPaused,
      // queue.pauseWorker(id) / resumeWorker(id), from the dashboard: taken at a heartbeat.
      onRequest: (pause) => void (pause ? this.pause() : this.resume()).catch((err: unknown) => this.report(err, 'a pause or resume asked through the queue failed')),
      onReaped: (outcomes) => outcomes.forEach(({ id, state }) => this.safeEmit('stalled', id, state)),
      report: (err, context) => this.report(err, context),
    });
    this.outcomes = new OutcomeWriter<Data, Result>({
      queueName: queue,
      options: this.o,
      claimer: this.claimer,
      slots: this.slots,
      prefetch: this.prefetch,
      promoter: this.upkeep.promoter,
      running: () => this.claiming,
      persist: (call) => this.persist(call),
      freeSlot: (held, refill) => this.freeSlot(held, refill),
      slotFreed: () => this.slotFreed(),
      emit: (event, ...args) => this.safeEmit(event, ...args),
      report: (err, context) => this.report(err, context),
    });
    this.pauser = new WorkerPause<Data, Result>({
      claimer: this.claimer,
      upkeep: this.upkeep,
      slots: this.slots,
      started: () => this.state === 'running',
      handBack: (held) => this.handBack(held),
      changed: (paused) => {
        this.upkeep.beatNow();
        this.safeEmit(paused ? 'paused' : 'resumed');
      },
      report: (err, context) => this.report(err, context),
    });
    if (this.o.autorun) void this.run().catch((err) => this.report(err, 'the worker could not start'));
  }

  /** Starts the worker (autorun does it for you). Resolves once it listens for work. */
  run(): Promise<void> {
    this.startup ??= this.start();
    return this.startup;
  }

  /** Jobs held right now (running, or parked behind their name's cap). */
  get activeCount(): number {
    return this.slots.size;
  }

  get isRunning(): boolean {
    return this.state === 'running';
  }

  /**
   * This worker stops claiming; the queue and its other workers go on. Jobs
   * it holds but never started go back to waiting at once; running ones
   * finish. Resolves once they did, unless `doNotWaitActive` (or `true`).
   */
  pause(options?: PauseOptions): Promise<void> {
    return this.pauser.pause(options);
  }

  /** Claims again after pause(). */
  resume(): Promise<void> {
    return this.pauser.resume();
  }

  isPaused(): boolean {
    return this.pauser.isPaused;
  }

  /** Started, not closing, not paused: claims may run and jobs may start. */
  private get claiming(): boolean {
    return this.state === 'running' && !this.pauser.isPaused;
  }

  /**
   * Stops claiming, lets running jobs finish for up to `timeout` ms (default:
   * shutdownTimeout), then aborts the rest (job.signal, WorkerClosingError) and
   * hands them back to waiting without counting the attempt. Resolves once
   * every outcome write landed or was given up (retried until the timeout,
   * then once more), saying which (WorkerCloseResult).
   */
  close(options: { readonly timeout?: number } = {}): Promise<WorkerCloseResult> {
    this.closing ??= this.shutdown(options.timeout ?? this.o.shutdownTimeout);
    return this.closing;
  }

  private async start(): Promise<void> {
    if (this.state !== 'new') return;
    this.state = 'running';
    if (this.o.limiter !== undefined) await this.o.store.configure(this.queueName, { rateLimit: this.o.limiter });
    await this.upkeep.listen();
    if (this.state !== 'running') return;
    this.upkeep.start();
    if (!this.pauser.isPaused) this.claimer.start();
  }

  /** A claimed job: run it, park it behind its name's cap, or hand it back when closing. */
  private take(record: JobRecord): void {
    const held = new HeldJob<Data, Result>(this.queueName, record, (lease) => this.writer(lease), this.o.store);
    const runsNow = this.slots.hold(held);
    this.busySinceDrained = true;
    if (!this.claiming) void this.handBack(held);
    else if (runsNow) this.begin(held);
  }

  private begin(held: HeldJob<Data, Result>): void {
    const { job } = held;
    if (held.lost) {
      // Its lease was lost while it waited in reserve: nothing to run it for; the next one may start.
      this.freeSlot(held);
      const next = this.slots.takeRunnable();
      if (next) this.begin(next);
      return;
    }
    this.slots.started(held);
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
      outcome = { ok: true, value: await runHandler(this.queueName, held, this.handler.run, this.o.tracing) };
    } catch (thrown) {
      outcome = { ok: false, error: toError(thrown) };
    }
    if (!held.finishing) await this.finish(held, outcome);
  }

  /** The handler's run is over (returned, threw, timed out, or never ran): record its outcome. */
  private finish(held: HeldJob<Data, Result>, outcome: Outcome<Result>): Promise<void> {
    held.finishing = true;
    held.clearTimer();
    this.endRun(held);
    this.prefetch.ran(held.ranMs);
    held.writing = this.ledger.track(held.job.id, 'outcome', this.outcomes.write(held, outcome), (err) => {
      this.report(err, `recording the outcome of job ${held.job.id} failed${this.forced ? ' (given up: the worker is closing)' : ''}`);
      this.freeSlot(held);
    });
    return held.writing;
  }

  /**
   * A started job's run is over (once: from finish, or from a hand-back of a
   * job still running): a parked job of its name may start, and a name that
   * was at its cap can be claimed again.
   */
  private endRun(held: HeldJob<Data, Result>): void {
    const { next, reopened } = this.slots.runEnded(held, this.claiming);
    if (reopened) this.claimer.capReopened();
    if (next) this.begin(next);
  }

  /** Frees the job's local slot (the store's release hands a job back to Redis: a different thing). */
  private freeSlot(held: HeldJob<Data, Result>, refill = true): void {
    this.slots.free(held);
    if (refill) this.slotFreed();
  }

  private slotFreed(): void {
    if (this.claiming) this.claimer.slotFreed();
  }

  /** 'drained' once the queue is empty and the last job of this worker is done. */
  private checkDrained(): void {
    if (this.claimer.isIdle && this.busySinceDrained && this.slots.size === 0) {
      this.busySinceDrained = false;
      this.safeEmit('drained');
    }
  }

  private persist<T>(call: () => Promise<T>): Promise<T> {
    return persist(call, {
      giveUp: () => this.forced,
      onRetry: (err, attempt) => {
        if (attempt === 1) this.report(err, 'a write to the store failed; retrying until it answers');
      },
    });
  }

  private writer(lease: Lease) {
    return leaseWriter(this.o.store, this.queueName, lease, this.o, (value) => {
      const held = this.slots.find(lease.id, lease.token);
      if (held) this.safeEmit('progress', held.job, value);
    });
  }

  /** Shutdown or pause: abort the job and give it back to waiting, attempt not counted. */
  private handBack(held: HeldJob<Data, Result>): Promise<void> {
    const report = (err: unknown, context: string): void => this.report(err, context);
    return handBack(held, { store: this.o.store, queueName: this.queueName, ledger: this.ledger, endRun: (h) => this.endRun(h), freeSlot: (h) => this.freeSlot(h, false), report });
  }

  private async shutdown(timeout: number): Promise<WorkerCloseResult> {
    const started = this.state !== 'new';
    this.state = 'closing';
    const { id, queueName, startup, claimer, upkeep, slots, ledger } = this;
    const steps = { id, queueName, logger: this.o.logger, startup, claimer, upkeep, slots, ledger, report: (err: unknown, context: string) => this.report(err, context) };
    const result = started
      ? await closeWorker<Data, Result>({ ...steps, handBack: (held) => this.handBack(held), force: () => (this.forced = true) }, timeout)
      : ledger.result(false);
    // Every job was written or handed back: sandboxes still running one (aborted, not yet stopped) go too.
    await this.handler.close().catch((err: unknown) => this.report(err, 'stopping the sandboxes failed'));
    this.state = 'closed';
    this.safeEmit('closed');
    return result;
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
