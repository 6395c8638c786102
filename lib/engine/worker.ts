import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { JobRecord, Lease } from '../store/store.js';
import { Claimer } from './claimer.js';
import { CorruptJobError, InvalidArgumentError, StoredPayloadTooLargeError, WorkerClosingError } from './errors.js';
import type { WorkerEvents } from './events.js';
import { HeldJob } from './held-job.js';
import type { ActiveJob } from './job.js';
import { leaseWriter } from './lease-writer.js';
import { validateQueueName } from './names.js';
import { persist } from './persist.js';
import { Slots } from './slots.js';
import { toError } from './to-error.js';
import { TurnPacer } from './turn-pacer.js';
import { Upkeep } from './upkeep.js';
import { OutcomeWriter, type Outcome } from './outcome-writer.js';
import { Prefetch } from './prefetch.js';
import { closeWorker } from './worker-close.js';
import { CloseLedger, type WorkerCloseResult, type WriteFate } from './close-ledger.js';
import { runHandler } from './run-handler.js';
import { resolveWorkerOptions, type ResolvedWorkerOptions, type WorkerOptions } from './worker-options.js';
import { describe } from './options.js';
import { storeFor } from './shards.js';
import { isNetworkError } from '../store/outage-log.js';

/** Runs one job; what it returns is stored as the job's result (JSON). */
export type Handler<Data = unknown, Result = unknown> = (job: ActiveJob<Data, Result>) => Promise<Result> | Result;

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
  private state: 'new' | 'running' | 'closing' | 'closed' = 'new';
  private busySinceDrained = false;
  /** Past the shutdown timeout: stop retrying writes. */
  private forced = false;
  private startup: Promise<void> | undefined;
  private closing: Promise<WorkerCloseResult> | undefined;
  /** Every outcome and hand-back write, so close() waits for each and says which landed. */
  private readonly ledger = new CloseLedger();

  constructor(queueName: string, private readonly handler: Handler<Data, Result>, options: WorkerOptions) {
    super();
    this.queueName = validateQueueName(queueName, 'Worker queue name');
    if (typeof handler !== 'function') throw new InvalidArgumentError('Worker handler', `must be a function (job) => result, got ${describe(handler)}`);
    const resolved = resolveWorkerOptions(options);
    this.o = { ...resolved, store: storeFor(resolved.store, this.queueName, options.shards, 'Worker options.shards') };
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
      pushable: () => this.upkeep.pushable,
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
      running: () => this.state === 'running',
      persist: (call) => this.persist(call),
      freeSlot: (held, refill) => this.freeSlot(held, refill),
      slotFreed: () => this.slotFreed(),
      emit: (event, ...args) => this.safeEmit(event, ...args),
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
   * Stops claiming, lets running jobs finish for up to `timeout` ms (default:
   * shutdownTimeout), then aborts the rest (job.signal, WorkerClosingError) and
   * hands them back to waiting without counting the attempt. Resolves once
   * every outcome write has landed or been given up (a write Redis does not
   * answer is retried until the timeout, then tried once more), with which
   * was which: a job whose write was given up stays active until its lease
   * expires, then runs again.
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
    this.claimer.start();
  }

  /** A claimed job: run it, park it behind its name's cap, or hand it back when closing. */
  private take(record: JobRecord): void {
    const held = new HeldJob<Data, Result>(this.queueName, record, (lease) => this.writer(lease), this.o.store);
    const runsNow = this.slots.hold(held);
    this.busySinceDrained = true;
    if (this.state !== 'running') void this.handBack(held);
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
      outcome = { ok: true, value: await runHandler(this.queueName, held, this.handler, this.o.tracing) };
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
    const write = this.outcomes.write(held, outcome).then(
      (): WriteFate => 'written',
      (err: unknown): WriteFate => {
        this.report(err, `recording the outcome of job ${held.job.id} failed${this.forced ? ' (given up: the worker is closing)' : ''}`);
        this.freeSlot(held);
        return 'given-up';
      },
    );
    held.writing = this.ledger.track(held.job.id, 'outcome', write);
    return held.writing;
  }

  /**
   * A started job's run is over (once: from finish, or from a hand-back of a
   * job still running): a parked job of its name may start, and a name that
   * was at its cap can be claimed again.
   */
  private endRun(held: HeldJob<Data, Result>): void {
    const { next, reopened } = this.slots.runEnded(held, this.state === 'running');
    if (reopened) this.claimer.capReopened();
    if (next) this.begin(next);
  }

  /** Frees the job's local slot (the store's release hands a job back to Redis: a different thing). */
  private freeSlot(held: HeldJob<Data, Result>, refill = true): void {
    this.slots.free(held);
    if (refill) this.slotFreed();
  }

  private slotFreed(): void {
    if (this.state === 'running') this.claimer.slotFreed();
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
        if (attempt === 1) this.report(err, 'a write to Redis failed; retrying until it answers');
      },
    });
  }

  private writer(lease: Lease) {
    return leaseWriter(this.o.store, this.queueName, lease, this.o, (value) => {
      const held = this.slots.find(lease.id, lease.token);
      if (held) this.safeEmit('progress', held.job, value);
    });
  }

  /** Shutdown: abort the job and give it back to waiting, attempt not counted. */
  private async handBack(held: HeldJob<Data, Result>): Promise<void> {
    if (!held.finishing) {
      held.finishing = true;
      // Recorded as the job's write, so a second hand-back (the shutdown's last step) waits for this one.
      held.writing = this.ledger.track(held.job.id, 'hand-back', this.giveBack(held));
    }
    await held.writing;
  }

  private async giveBack(held: HeldJob<Data, Result>): Promise<WriteFate> {
    held.clearTimer();
    if (held.started) this.endRun(held);
    held.abort(new WorkerClosingError(held.job.id));
    let fate: WriteFate = 'written';
    try {
      await this.o.store.release(this.queueName, held.lease);
    } catch (err) {
      this.report(err, `handing job ${held.job.id} back failed; it returns to waiting when its lease expires`);
      fate = 'given-up';
    }
    this.freeSlot(held, false);
    return fate;
  }

  private async shutdown(timeout: number): Promise<WorkerCloseResult> {
    const started = this.state !== 'new';
    this.state = 'closing';
    let result: WorkerCloseResult = { timedOut: false, handedBack: [], written: [], givenUp: [] };
    if (started) {
      result = await closeWorker<Data, Result>(
        {
          id: this.id,
          queueName: this.queueName,
          logger: this.o.logger,
          startup: this.startup,
          claimer: this.claimer,
          upkeep: this.upkeep,
          slots: this.slots,
          ledger: this.ledger,
          handBack: (held) => this.handBack(held),
          force: () => (this.forced = true),
          report: (err, context) => this.report(err, context),
        },
        timeout,
      );
    }
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
