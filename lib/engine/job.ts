import type { ChildRef, JobRecord, JobState, Store } from '../store/store.js';
import { ClosedError, InvalidArgumentError } from './errors.js';
import { encodeJson } from './json.js';
import { describe, positiveInteger } from './options.js';
import { CHILD_FAILURE_POLICIES, type ChildFailureInfo, type ChildFailurePolicy } from './flow-types.js';
import type { StoredJobOptions } from './options.js';
import { waitUntilFinished, type WaitOptions } from './wait-finished.js';

/** Why the last attempt failed (and, for a dead letter, why it died). */
export interface JobError {
  readonly message: string;
  readonly stack: string;
  /** Error class name or code. */
  readonly code: string;
  /** For dead letters: error, unrecoverable, stalled, deadline, timeout, validation, no-handler, corrupt, payload-too-large, result, child-failed, sandbox-crashed. */
  readonly reason?: string;
}

type Decoded<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

const ABSENT: Decoded<undefined> = { ok: true, value: undefined };

function decode<T>(text: string | undefined, field: string): Decoded<T | undefined> {
  if (text === undefined) return ABSENT;
  try {
    return { ok: true, value: JSON.parse(text) as T };
  } catch (err) {
    return { ok: false, problem: `${field} is not valid JSON (${(err as Error).message})` };
  }
}

/** `problems` with what `d` could not decode added (allocated only when there is one). */
function withProblem(problems: string[] | undefined, d: Decoded<unknown> | undefined): string[] | undefined {
  if (!d || d.ok) return problems;
  (problems ??= []).push(d.problem);
  return problems;
}

/**
 * A job as read from Redis: a snapshot, not a live object. Fields of stored
 * JSON that cannot be decoded are left undefined and named in `corruption`.
 */
export class Job<Data = unknown, Result = unknown> {
  readonly id: string;
  readonly name: string;
  readonly data: Data;
  readonly opts: StoredJobOptions;
  readonly state: JobState;
  /** Attempts started so far, the running one included (a stall does not count). */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly priority: number;
  /** Times the job's worker died or blocked past its lease. */
  readonly stalled: number;
  readonly createdAt: number;
  readonly runAt?: number;
  readonly startedAt?: number;
  readonly finishedAt?: number;
  readonly deadline?: number;
  readonly progress?: unknown;
  readonly result?: Result;
  readonly error?: JobError;
  readonly cancelRequested: boolean;
  /** Group (tenant) id, when added with opts.group. */
  readonly group?: string;
  /** What could not be decoded from the stored job, if anything. */
  readonly corruption?: string;
  /** The flow parent this job reports to, if it is a flow child. */
  readonly parent?: ChildRef;
  /** Where to read children and wait for the outcome; absent on snapshots built without a store. */
  readonly #store: Store | undefined;

  /**
   * `data`, when given, is the payload already decoded (a job just added): it saves parsing it back.
   * `store` lets the job read its children and wait for its outcome.
   */
  constructor(readonly queueName: string, record: JobRecord, data?: { readonly value: Data }, store?: Store) {
    // A job just added has its data as given (no parse, no wrapper); a bulk add makes one Job per job.
    const decodedData: Decoded<Data | undefined> | undefined = data ? undefined : decode<Data>(record.data, 'data');
    // A job added without options stores none (or '{}'): nothing to parse.
    const opts = record.opts === '{}' ? ABSENT : decode<StoredJobOptions>(record.opts, 'opts');
    const progress = decode<unknown>(record.progress, 'progress');
    const result = decode<Result>(record.result, 'result');
    let problems = withProblem(withProblem(withProblem(withProblem(undefined, decodedData), opts), progress), result);
    if (!record.name) (problems ??= []).push('name is missing');

    this.id = record.id;
    this.name = record.name;
    this.data = (data ? data.value : decodedData!.ok ? decodedData!.value : undefined) as Data;
    // attempts comes from maxAttempts: jobs stored since the compact layout keep it out of opts.
    const stored = opts.ok && opts.value && typeof opts.value === 'object' ? opts.value : undefined;
    this.opts = Object.assign({ attempts: record.maxAttempts }, stored) as StoredJobOptions;
    this.state = record.state;
    this.attempt = record.attempt;
    this.maxAttempts = record.maxAttempts;
    this.priority = record.priority;
    this.stalled = record.stalled;
    this.createdAt = record.createdAt;
    this.runAt = record.runAt;
    this.startedAt = record.startedAt;
    this.finishedAt = record.finishedAt;
    this.deadline = record.deadline;
    this.progress = progress.ok ? progress.value : undefined;
    this.result = result.ok ? result.value : undefined;
    this.error = record.error && { ...record.error, ...(record.reason !== undefined && { reason: record.reason }) };
    this.cancelRequested = record.cancelRequested;
    if (record.group) this.group = record.group;
    if (record.parent) this.parent = record.parent;
    if (problems) this.corruption = problems.join('; ');
    this.#store = store;
  }

  /**
   * Results of the completed children of this flow parent, keyed by
   * `<queue>:<id>` of each child (children still pending or failed are absent).
   */
  async getChildrenResults<T = unknown>(): Promise<Record<string, T>> {
    const { results } = await this.store('getChildrenResults').getChildren(this.queueName, this.id);
    const out: Record<string, T> = {};
    for (const { child, result } of results) out[`${child.queue}:${child.id}`] = parseResult<T>(result);
    return out;
  }

  /** Children that died (or were cancelled) and how the parent took it, keyed by `<queue>:<id>`. */
  async getChildrenFailures(): Promise<Record<string, ChildFailureInfo>> {
    const { failures } = await this.store('getChildrenFailures').getChildren(this.queueName, this.id);
    const out: Record<string, ChildFailureInfo> = {};
    for (const { child, failure } of failures) out[`${child.queue}:${child.id}`] = { ...failure, policy: policyName(failure.policy) };
    return out;
  }

  /** Children this parent still waits for. */
  async getPendingChildren(): Promise<ChildRef[]> {
    return (await this.store('getPendingChildren').getChildren(this.queueName, this.id)).pending;
  }

  /**
   * Resolves with the result once the job completed; rejects with
   * JobFailedError, JobCancelledError, or WaitTimeoutError after `timeout` ms.
   */
  waitUntilFinished(options?: WaitOptions): Promise<Result> {
    return waitUntilFinished<Result>(this.store('waitUntilFinished'), this.queueName, this.id, options);
  }

  private store(what: string): Store {
    if (!this.#store) throw new ClosedError(`${what}() needs a job read through a Queue, Worker or FlowProducer`);
    return this.#store;
  }
}

function parseResult<T>(json: string): T {
  try {
    return JSON.parse(json) as T;
  } catch {
    return undefined as T;
  }
}

function policyName(stored: string): ChildFailurePolicy {
  const found = (Object.keys(CHILD_FAILURE_POLICIES) as ChildFailurePolicy[]).find((p) => CHILD_FAILURE_POLICIES[p] === stored);
  return found ?? 'failParentOnFailure';
}

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
  updateProgress(value: unknown): Promise<void> {
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
  async updateData(data: Data): Promise<void> {
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
