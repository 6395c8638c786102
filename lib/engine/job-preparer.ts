import type { NewJob } from '../store/store.js';
import { InvalidArgumentError, PayloadTooLargeError } from './errors.js';
import { JobIds } from './ids.js';
import { encodeJson } from './json.js';
import { assertPlainObject, describe } from '../common/validation.js';
import { normalizeJobOptions, storedOptions, type JobOptions, type NormalizedJobOptions } from './options.js';

type NormalizedOptions = NormalizedJobOptions;
/** The queue's default options, normalized once, with their stored JSON: what a job without options of its own gets. */
type Plain = { readonly opts: NormalizedJobOptions; readonly stored: string };

/** Checks a payload before it is stored; throw to refuse the add (the Nest module plugs DTO validation in here). */
export type PayloadValidator = (jobName: string, data: unknown) => void | Promise<void>;

/** One job of `queue.addBulk()`: its name, payload and options, as `queue.add()` takes them. */
export interface BulkJob<Data = unknown> {
  readonly name: string;
  readonly data: Data;
  readonly opts?: JobOptions;
}

/** The queue options that shape every job it adds. */
export interface PreparerOptions {
  readonly defaultJobOptions?: JobOptions;
  readonly maxPayloadBytes?: number;
  readonly validate?: PayloadValidator;
}

/**
 * Turns what a producer passes (name, data, options) into the job the store
 * writes: defaults applied, options checked, payload validated, encoded and
 * measured, id assigned. Errors name the field (`at`: its path in the call).
 */
export class JobPreparer<Data> {
  private readonly defaults?: JobOptions;
  private readonly maxPayloadBytes: number;
  private readonly validate?: PayloadValidator;
  private readonly ids: JobIds;
  /**
   * What a job added without options gets: the defaults, normalized once
   * (with their stored JSON). A bulk of plain jobs normalized them per job,
   * about a third of the producer's allocations. Not kept when the defaults
   * give a runAt: the delay it makes depends on the time of the add.
   */
  private readonly plain: Plain | undefined;

  /**
   * `now`: the store's clock (a MemoryStore's may be moved by a test), for runAt and deadlines given as dates.
   * `reserveIds`: the queue's id counter (Store.reserveIds), for jobs without a jobId.
   */
  constructor(options: PreparerOptions, private readonly now: () => number, reserveIds: (count: number) => Promise<number>) {
    this.ids = new JobIds(reserveIds);
    if (options.defaultJobOptions !== undefined) {
      normalizeJobOptions(options.defaultJobOptions, undefined, 'Queue options.defaultJobOptions');
      if (options.defaultJobOptions.jobId !== undefined) {
        throw new InvalidArgumentError('Queue options.defaultJobOptions.jobId', 'would give every job the same id', 'set jobId per job');
      }
      // A copy: the defaults are those of the queue's creation (plain jobs use them normalized once).
      this.defaults = { ...options.defaultJobOptions };
    }
    if (this.defaults?.runAt === undefined) {
      const opts = normalizeJobOptions(undefined, this.defaults, 'Queue options.defaultJobOptions');
      this.plain = { opts, stored: JSON.stringify(storedOptions(opts)) };
    }
    this.maxPayloadBytes = options.maxPayloadBytes ?? 1024 * 1024;
    if (!Number.isInteger(this.maxPayloadBytes) || this.maxPayloadBytes < 1) {
      throw new InvalidArgumentError('Queue options.maxPayloadBytes', `must be a positive integer, got ${describe(options.maxPayloadBytes)}`);
    }
    if (options.validate !== undefined && typeof options.validate !== 'function') {
      throw new InvalidArgumentError('Queue options.validate', `must be a function (jobName, data) => void, got ${describe(options.validate)}`);
    }
    this.validate = options.validate;
  }

  /** Jobs hold the ids in hand (the store's counter went back): the next are drawn afresh. */
  discardIds(): void {
    this.ids.discard();
  }

  /** `traceContext`: the producer span's (captureTraceContext), taken once for a whole bulk: its jobs carry the same one. */
  async prepare(job: BulkJob<Data>, at: string, traceContext: string | undefined): Promise<{ job: NewJob }> {
    return { job: await this.prepareNow(job, at, traceContext) };
  }

  /**
   * The job as the store takes it, without a promise when nothing needs one
   * (no validator, the id in hand or given): a bulk of 1,000 then makes no
   * promise per job (about a tenth of the producer's node time per job).
   * Throws (synchronously) on bad input.
   */
  prepareNow(job: BulkJob<Data>, at: string, traceContext: string | undefined): NewJob | Promise<NewJob> {
    assertPlainObject(job, at ? at.slice(0, -1) : 'job');
    if (typeof job.name !== 'string' || job.name.length === 0 || job.name.length > 256) {
      throw new InvalidArgumentError(`${at}name`, `must be a job name of 1 to 256 characters, got ${describe(job.name)}`);
    }
    const plain = job.opts === undefined ? this.plain : undefined;
    const opts = plain ? plain.opts : normalizeJobOptions(job.opts, this.defaults, `${at}opts`, this.now());
    if (this.validate) return this.validated(job, at, traceContext, plain, opts);
    return this.identified(job, at, traceContext, plain, opts);
  }

  private async validated(job: BulkJob<Data>, at: string, traceContext: string | undefined, plain: Plain | undefined, opts: NormalizedOptions): Promise<NewJob> {
    await this.validate!(job.name, job.data);
    return this.identified(job, at, traceContext, plain, opts);
  }

  /** The payload checked and the id taken: no await while the producer's block holds ids, so the adds of a turn stay together, in call order. */
  private identified(job: BulkJob<Data>, at: string, traceContext: string | undefined, plain: Plain | undefined, opts: NormalizedOptions): NewJob | Promise<NewJob> {
    const data = encodeJson(job.data, `${at}data`);
    const bytes = Buffer.byteLength(data);
    if (bytes > this.maxPayloadBytes) throw new PayloadTooLargeError(`${at}data`, bytes, this.maxPayloadBytes);
    const id = opts.jobId;
    if (id === undefined) {
      const drawn = this.ids.take();
      return typeof drawn === 'string' ? newJob(drawn, job.name, data, plain, opts, traceContext) : drawn.then((taken) => newJob(taken, job.name, data, plain, opts, traceContext));
    }
    const turn = this.ids.inTurn();
    return turn ? turn.then(() => newJob(id, job.name, data, plain, opts, traceContext)) : newJob(id, job.name, data, plain, opts, traceContext);
  }
}

function newJob(id: string, name: string, data: string, plain: Plain | undefined, opts: NormalizedOptions, traceContext: string | undefined): NewJob {
  return {
    id,
    name,
    data,
    opts: plain ? plain.stored : JSON.stringify(storedOptions(opts)),
    delay: opts.delay,
    priority: opts.priority,
    lifo: opts.lifo,
    maxAttempts: opts.attempts,
    deadline: opts.deadline,
    dedup: opts.dedup,
    removeOnComplete: opts.removeOnComplete,
    removeOnFail: opts.removeOnFail,
    group: opts.group,
    traceContext,
  };
}
