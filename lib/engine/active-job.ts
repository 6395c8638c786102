import type { JobRecord, Store } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import { encodeJson } from './json.js';
import { describe, positiveInteger } from './options.js';
import { Job } from './job.js';

/** Writes a running job makes, each checked in Redis against its lease token. */
export interface LeaseWriter {
  progress(value: unknown): Promise<void>;
  /** Replaces the stored payload; resolves with the value as stored (its JSON parsed back). */
  data(value: unknown): Promise<unknown>;
  log(line: string): Promise<void>;
  /** Reads a side effect recorded by once(): its stored outcome, or null. */
  recalled(key: string): Promise<string | null>;
  /** Records a side effect as done, for ttl ms. */
  remember(key: string, outcome: string, ttlMs: number): Promise<void>;
}

export interface OnceOptions {
  /** How long the step stays recorded as done, in ms. Default 24 hours. */
  readonly ttl?: number;
}

const ONCE_TTL = 24 * 60 * 60 * 1000;

/**
 * The job a handler runs. `signal` aborts on cancel, lease loss, timeout,
 * deadline and shutdown (its `reason` says which); progress and log writes
 * are refused with LeaseLostError once the lease is gone.
 */
export class ActiveJob<Data = unknown, Result = unknown> extends Job<Data, Result> {
  readonly #writer: LeaseWriter;
  readonly #signal: () => AbortSignal;

  /** `signal` is asked for on first use: most handlers never read it, and an AbortController per job costs a few µs. */
  constructor(queueName: string, record: JobRecord, signal: () => AbortSignal, writer: LeaseWriter, store?: Store) {
    super(queueName, record, undefined, store);
    this.#writer = writer;
    this.#signal = signal;
  }

  get signal(): AbortSignal {
    return this.#signal();
  }

  /** Records progress (any JSON value) on the job, if this worker still holds it. */
  override updateProgress(value: unknown): Promise<void> {
    return this.#writer.progress(value);
  }

  /** Appends a line to the job's log, if this worker still holds it. */
  log(line: string): Promise<void> {
    return this.#writer.log(line);
  }

  /**
   * Replaces the job's payload, if this worker still holds it (else
   * LeaseLostError, nothing written): a later attempt (a retry, a delivery
   * after a crash) gets the new data, so a handler can record how far it
   * got. `job.data` is the new value (as stored: JSON) once this resolves.
   * Not validated against the name's DTO; larger than the worker's
   * maxPayloadBytes throws PayloadTooLargeError.
   *
   * @example
   * if (job.data.step === 'fetch') { await fetchAll(); await job.updateData({ ...job.data, step: 'import' }); }
   */
  override async updateData(data: Data): Promise<void> {
    const stored = await this.#writer.data(data);
    // `data` is readonly to callers; this is the one place it changes, after Redis has the new value.
    (this as unknown as { data: unknown }).data = stored;
  }

  /**
   * Runs a side effect at most once per idempotency key (the job option
   * `idempotencyKey`, else the job id) and step: once it succeeded it is
   * recorded, with its result, for `ttl` ms, and a later delivery of the job
   * gets the recorded result without running it again. Delivery is
   * at-least-once, so a crash after the effect but before it is recorded runs
   * it again: make the effect itself idempotent where that matters.
   *
   * @example
   * await job.once('send-email', () => mailer.send(job.data), { ttl: 7 * 86_400_000 });
   */
  async once<T>(step: string, effect: () => Promise<T> | T, options: OnceOptions = {}): Promise<T> {
    if (typeof step !== 'string' || step.length === 0 || step.length > 128) {
      throw new InvalidArgumentError('job.once step', `must be a string of 1 to 128 characters, got ${describe(step)}`);
    }
    const ttl = options.ttl === undefined ? ONCE_TTL : positiveInteger(options.ttl, 'job.once options.ttl');
    const key = `${this.opts.idempotencyKey ?? `job:${this.id}`}:${step}`;
    const recalled = await this.#writer.recalled(key);
    if (recalled !== null) return (recalled === '' ? undefined : JSON.parse(recalled)) as T;
    const value = await effect();
    await this.#writer.remember(key, storable(value), ttl);
    return value;
  }
}

/**
 * A once() result as stored: JSON, or '' for undefined and for a value JSON
 * cannot carry. The effect already ran, so it is recorded as done either way;
 * a later delivery then gets undefined instead of the value.
 */
function storable(value: unknown): string {
  if (value === undefined) return '';
  try {
    return encodeJson(value, 'job.once result');
  } catch {
    return '';
  }
}
