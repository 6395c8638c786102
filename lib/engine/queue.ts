import { clockOf } from '../store/clock.js';
import type { AddOutcome, NewJob, Store } from '../store/store.js';
import type { EnqueueOptions, TransactionClient } from '../store/transaction.js';
import { transactionOf } from './transactions.js';
import { ClosedError, InvalidArgumentError, QueueFullError } from './errors.js';
import type { Job } from './job.js';
import { JobPreparer, type BulkJob, type PayloadValidator } from './job-preparer.js';
import { checkOptions, describe } from '../common/validation.js';
import { QUEUE_HINTS } from '../common/option-hints.js';
import type { JobOptions } from './options.js';
import { validateQueueName } from './names.js';
import { addedJob, recordOf } from './record.js';
import type { SchedulerJob, SchedulerRepeat } from './scheduler-spec.js';
import { Schedulers, type SchedulerInfo, type UpsertResult } from './schedulers.js';
import { captureTraceContext, inProducerSpan } from './tracing.js';
import { shardsOf, storeFor } from './shards.js';
import { ADD_BATCH, AddBatcher } from './add-batcher.js';
import { QueueOps } from './queue-ops.js';

export { recordOf };
export type { BulkJob, PayloadValidator };
export type { CancelResult } from './single-job-ops.js';
export type { DrainOptions, ObliterateOptions } from './queue-ops.js';

/** Options of `new Queue(name, options)`: the store, default job options, the payload limit and validator, shards and tracing. */
export interface QueueOptions {
  readonly store: Store;
  /** Options every job gets unless it sets its own. */
  readonly defaultJobOptions?: JobOptions;
  /** Largest encoded payload accepted, in bytes. Default 1 MiB. */
  readonly maxPayloadBytes?: number;
  readonly validate?: PayloadValidator;
  /**
   * Spreads this queue over this many physical queues (on a Redis Cluster,
   * over the masters): see docs/operations/cluster.md#sharded-queues. Every Queue, Worker and
   * QueueEvents of the queue must pass the same number. Default 1.
   */
  readonly shards?: number;
  /** With OpenTelemetry: adds run in a producer span whose context the jobs store. Default true; false: no span, no context stored. */
  readonly tracing?: boolean;
}

const QUEUE_OPTIONS: readonly (keyof QueueOptions)[] = ['store', 'defaultJobOptions', 'maxPayloadBytes', 'validate', 'shards', 'tracing'];

/** Checks the name and options before anything is built on them; the store a sharded queue goes through. */
function opened(name: string, options: QueueOptions): { name: string; store: Store } {
  const checked = validateQueueName(name, 'Queue name', "new Queue('emails', { store })");
  checkOptions<QueueOptions>(options, QUEUE_OPTIONS, 'Queue options', QUEUE_HINTS);
  if (!options.store) throw new InvalidArgumentError('Queue options.store', 'is required', 'pass a connected RedisStore');
  if (options.tracing !== undefined && typeof options.tracing !== 'boolean') {
    throw new InvalidArgumentError('Queue options.tracing', `must be a boolean, got ${describe(options.tracing)}`);
  }
  return { name: checked, store: storeFor(options.store, checked, options.shards, 'Queue options.shards') };
}

// Adds and schedulers are written in this file; the reads in queue-reads.ts, the changes in queue-ops.ts.

/**
 * The producer side of a queue: add, inspect, cancel, pause, housekeeping.
 *
 * @example
 * const queue = new Queue<{ to: string }>('emails', { store });
 * const job = await queue.add('welcome', { to: 'ada@example.com' }, { attempts: 3 });
 */
export class Queue<Data = unknown, Result = unknown> extends QueueOps<Data, Result> {
  /** The store as the caller passed it (`store` is a sharded view of it when `shards` > 1). */
  private readonly base: Store;
  private readonly preparer: JobPreparer<Data>;
  private readonly schedulers: Schedulers<Data>;
  private readonly adds: AddBatcher;
  private closed = false;
  private readonly tracing: boolean;

  constructor(name: string, options: QueueOptions) {
    const { name: checked, store } = opened(name, options);
    super(checked, store, options.maxPayloadBytes ?? 1024 * 1024);
    this.tracing = options.tracing ?? true;
    this.base = options.store;
    this.adds = new AddBatcher(this.store, this.name);
    this.preparer = new JobPreparer<Data>(options, () => clockOf(this.store).now(), (count) => this.store.reserveIds(this.name, count));
    this.schedulers = new Schedulers<Data>(this.name, this.store, async (job) => (await this.prepare({ ...job, data: job.data as Data }, 'job.', captureTraceContext(this.tracing))).job);
  }

  /** Adds one job (the adds of one turn share a script call). With a jobId or dedup key that already names a job, returns that job instead. */
  async add(name: string, data: Data, opts?: JobOptions & EnqueueOptions): Promise<Job<Data, Result>> {
    // `tx` is how to write, not a job option: the job options are checked (and stored) without it.
    const { tx, ...jobOpts } = opts ?? {};
    const [job] = await this.addBulk([{ name, data, opts: opts === undefined ? undefined : jobOpts }], tx === undefined ? undefined : { tx });
    return job!;
  }

  /**
   * Adds many jobs: all are checked before any is written, and each batch of
   * 1,000 is one script call. Against maxWaiting a batch is all-or-nothing:
   * a full queue throws QueueFullError and writes nothing of that batch (a
   * bulk over 1,000 jobs keeps the batches before it).
   */
  async addBulk(jobs: readonly BulkJob<Data>[], options?: EnqueueOptions): Promise<Job<Data, Result>[]> {
    this.assertOpen('addBulk');
    if (!Array.isArray(jobs)) throw new InvalidArgumentError('jobs', `must be an array of { name, data, opts }, got ${describe(jobs)}`);
    const tx = transactionOf(options, this.store, this.name);
    // With OpenTelemetry: a producer span whose context every job stores (lib/engine/tracing.ts).
    return inProducerSpan(this.name, jobs.length, () => this.write(jobs, tx), this.tracing);
  }

  private async write(jobs: readonly BulkJob<Data>[], tx: TransactionClient | undefined): Promise<Job<Data, Result>[]> {
    const traceContext = captureTraceContext(this.tracing);
    // No promise per job unless one needs it (a validator, an id still being drawn): see JobPreparer.prepareNow.
    const now: (NewJob | Promise<NewJob>)[] = [];
    try {
      for (let i = 0; i < jobs.length; i++) now.push(this.preparer.prepareNow(jobs[i]!, jobs.length === 1 ? '' : `jobs[${i}].`, traceContext));
    } catch (err) {
      // A bad job refuses the bulk: ids still being drawn for the jobs before it are not waited for (nor their failures left unhandled).
      for (const p of now) if (p instanceof Promise) p.catch(() => undefined);
      throw err;
    }
    const prepared = now.some((p) => p instanceof Promise) ? await Promise.all(now) : (now as NewJob[]);
    let outcomes: readonly AddOutcome[] = [];
    // In order, so a maxWaiting refusal leaves the earlier batches whole and the rest unwritten; one job joins this turn's call.
    // In the caller's transaction, each batch goes straight to it: other producers' adds must not join that transaction.
    for (let i = 0; i < prepared.length; i += ADD_BATCH) {
      const batch = prepared.length <= ADD_BATCH ? prepared : prepared.slice(i, i + ADD_BATCH);
      const reply = tx === undefined ? await this.adds.add(batch) : await this.store.addInTransaction!(this.name, batch, tx);
      if (reply.status === 'full') throw new QueueFullError(this.name, reply.limit, reply.group);
      outcomes = i === 0 ? reply.jobs : outcomes.concat(reply.jobs);
    }
    return outcomes.map((outcome, i) => {
      // Numbered anew by the store: the counter went back (a failover lost draws), so the rest of this producer's block is taken too.
      if (outcome.created && outcome.id !== prepared[i]!.id) this.discardIds();
      return addedJob<Data, Result>(this.name, this.store, outcome, prepared[i]!, jobs[i]!.data, this.maxPayloadBytes);
    });
  }

  /** Whether this queue reads and writes through `store` (a FlowProducer accepts only queues of its own store). */
  usesStore(store: Store): boolean {
    return this.base === store;
  }

  /** How many physical queues this queue is spread over (option `shards`; 1 when not sharded). */
  get shards(): number {
    return shardsOf(this.store, this.name);
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

  /**
   * Runs scheduler `id` once now, outside its cadence: adds its job (id
   * `<id>:<now ms>`); the pending tick, count and limit are untouched.
   * Resolves the job's id, or null for an unknown scheduler.
   */
  async runSchedulerNow(id: string): Promise<string | null> {
    this.assertOpen('runSchedulerNow');
    const reply = await this.schedulers.runNow(id);
    if (reply === null) return null;
    if (reply.status === 'full') throw new QueueFullError(this.name, reply.limit, reply.group);
    return reply.jobs[0]!.id;
  }

  /**
   * Stops scheduler `id` without removing it: its pending tick job goes, no
   * tick runs until resumeScheduler(id), getScheduler() says `paused`.
   * Upserting the same definition leaves it paused; a new one replaces it,
   * running. Resolves false for an unknown id.
   */
  pauseScheduler(id: string): Promise<boolean> {
    return this.schedulers.pause(id);
  }

  /** Lets a paused scheduler tick again from its next tick after now (the ticks that fell while paused do not run); false for an unknown id. */
  async resumeScheduler(id: string): Promise<boolean> {
    return (await this.schedulers.resume(id)).known;
  }

  /** Deletes a scheduler and its pending tick; resolves false for an unknown id. */
  removeScheduler(id: string): Promise<boolean> {
    return this.schedulers.remove(id);
  }

  /**
   * Asks worker `id` (see getWorkers()) to pause, or to resume: it takes the
   * request at its next heartbeat (within 5 s) and then does what
   * worker.pause() / resume() do. Resolves false when no live worker of this
   * queue has that id (nothing is asked).
   */
  async pauseWorker(id: string): Promise<boolean> {
    return this.requestWorker(id, true, 'pauseWorker');
  }

  /** Asks a worker paused with pauseWorker() (or worker.pause()) to claim again; false when no live worker has that id. */
  async resumeWorker(id: string): Promise<boolean> {
    return this.requestWorker(id, false, 'resumeWorker');
  }

  private async requestWorker(id: string, paused: boolean, what: string): Promise<boolean> {
    if (typeof id !== 'string' || id.length === 0) throw new InvalidArgumentError(`${what}() id`, 'must be a worker id from queue.getWorkers()');
    if (!this.store.requestWorker) throw new InvalidArgumentError('Queue options.store', `cannot pass requests to workers (${what})`, 'use a RedisStore or a MemoryStore');
    if (!(await this.getWorkers()).some((w) => w.id === id)) return false;
    await this.store.requestWorker(this.name, id, paused);
    return true;
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
