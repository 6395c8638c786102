import type { NewJob } from '../store/store.js';
import { InvalidArgumentError, PayloadTooLargeError } from './errors.js';
import { IdGenerator } from './ids.js';
import { encodeJson } from './json.js';
import { assertPlainObject, describe } from '../common/validation.js';
import { normalizeJobOptions, storedOptions, type JobOptions } from './options.js';
import { captureTraceContext } from './tracing.js';

/** Checks a payload before it is stored; throw to refuse the add (the Nest module plugs DTO validation in here). */
export type PayloadValidator = (jobName: string, data: unknown) => void | Promise<void>;

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
  private readonly ids = new IdGenerator();

  /** `now`: the store's clock (a MemoryStore's may be moved by a test), for runAt and deadlines given as dates. */
  constructor(options: PreparerOptions, private readonly now: () => number = Date.now) {
    if (options.defaultJobOptions !== undefined) {
      normalizeJobOptions(options.defaultJobOptions, undefined, 'Queue options.defaultJobOptions');
      if (options.defaultJobOptions.jobId !== undefined) {
        throw new InvalidArgumentError('Queue options.defaultJobOptions.jobId', 'would give every job the same id', 'set jobId per job');
      }
      this.defaults = options.defaultJobOptions;
    }
    this.maxPayloadBytes = options.maxPayloadBytes ?? 1024 * 1024;
    if (!Number.isInteger(this.maxPayloadBytes) || this.maxPayloadBytes < 1) {
      throw new InvalidArgumentError('Queue options.maxPayloadBytes', `must be a positive integer, got ${String(options.maxPayloadBytes)}`);
    }
    this.validate = options.validate;
  }

  async prepare(job: BulkJob<Data>, at: string): Promise<{ job: NewJob }> {
    assertPlainObject(job, at ? at.slice(0, -1) : 'job');
    if (typeof job.name !== 'string' || job.name.length === 0 || job.name.length > 256) {
      throw new InvalidArgumentError(`${at}name`, `must be a job name of 1 to 256 characters, got ${describe(job.name)}`);
    }
    const opts = normalizeJobOptions(job.opts, this.defaults, `${at}opts`, this.now());
    if (this.validate) await this.validate(job.name, job.data);
    const data = encodeJson(job.data, `${at}data`);
    const bytes = Buffer.byteLength(data);
    if (bytes > this.maxPayloadBytes) throw new PayloadTooLargeError(`${at}data`, bytes, this.maxPayloadBytes);
    return {
      job: {
        id: opts.jobId ?? this.ids.next(),
        name: job.name,
        data,
        opts: JSON.stringify(storedOptions(opts)),
        delay: opts.delay,
        priority: opts.priority,
        lifo: opts.lifo,
        maxAttempts: opts.attempts,
        deadline: opts.deadline,
        dedup: opts.dedup,
        removeOnComplete: opts.removeOnComplete,
        removeOnFail: opts.removeOnFail,
        group: opts.group,
        traceContext: captureTraceContext(),
      },
    };
  }
}
