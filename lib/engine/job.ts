import type { ChildRef, JobRecord, JobState, Store } from '../store/store.js';
import { ClosedError, InvalidArgumentError } from './errors.js';
import { describe } from './options.js';
import { changeJob, delayArg, encodeData, priorityArg } from './job-handle.js';
import { redriveOne } from './single-job-ops.js';
import { encodeJson } from './json.js';
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

/** The payload limit of a Job not read through a Queue (a Queue passes its own maxPayloadBytes). */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * A job as read from the store: its fields are a snapshot of that moment
 * (fields of stored JSON that cannot be decoded are left undefined and named
 * in `corruption`); its methods are a live handle, each one read or one
 * transition on the job as it is now (see docs/guide/jobs.md#job-handles).
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
  /** Where the handle methods read and write; absent on snapshots built without a store. */
  readonly #store: Store | undefined;
  readonly #maxPayloadBytes: number;

  /**
   * `data`, when given, is the payload already decoded (a job just added): it saves parsing it back.
   * `store` makes the job a live handle; `maxPayloadBytes` bounds updateData() (the queue's limit; default 1 MiB).
   */
  constructor(readonly queueName: string, record: JobRecord, data?: { readonly value: Data }, store?: Store, maxPayloadBytes = DEFAULT_MAX_PAYLOAD) {
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
    this.#maxPayloadBytes = maxPayloadBytes;
  }

  /** The job's state now (one read), 'unknown' when it no longer exists (removed, or dropped by retention). */
  async getState(): Promise<JobState | 'unknown'> {
    return (await this.store('getState').getState(this.queueName, this.id)) ?? 'unknown';
  }

  isCompleted(): Promise<boolean> {
    return this.isIn('completed');
  }

  isFailed(): Promise<boolean> {
    return this.isIn('failed');
  }

  isActive(): Promise<boolean> {
    return this.isIn('active');
  }

  isWaiting(): Promise<boolean> {
    return this.isIn('waiting');
  }

  isDelayed(): Promise<boolean> {
    return this.isIn('delayed');
  }

  isWaitingChildren(): Promise<boolean> {
    return this.isIn('waiting-children');
  }

  isCancelled(): Promise<boolean> {
    return this.isIn('cancelled');
  }

  /**
   * Deletes the job with its logs: a waiting, delayed or finished one.
   * JobStateError for an active job (cancel it), a flow parent waiting for
   * its children, or an unfinished flow child; JobNotFoundError when it is gone.
   */
  async remove(): Promise<void> {
    await changeJob(this.store('remove'), this.queueName, this.id, { kind: 'remove' }, 'remove');
  }

  /**
   * Re-drives this dead letter (as queue.retry(id)): resolves its new state;
   * JobNotFailedError when it is not failed. `state` is BullMQ's argument:
   * only 'failed' is accepted (a completed job is not run again).
   */
  retry(state: 'failed' = 'failed'): Promise<JobState> {
    if (state !== 'failed') return Promise.reject(new InvalidArgumentError('job.retry state', `must be 'failed', got ${describe(state)}`, 'only dead letters are retried; add a new job to run a completed one again'));
    return redriveOne(this.store('retry'), this.queueName, this.id);
  }

  /** Runs this delayed job now: it waits at the end of its priority. JobStateError when it is not delayed. */
  async promote(): Promise<void> {
    await changeJob(this.store('promote'), this.queueName, this.id, { kind: 'promote' }, 'promote');
  }

  /** A delayed job becomes due `ms` from now (0: now); a waiting one is delayed by `ms`. JobStateError in any other state. */
  async changeDelay(ms: number): Promise<void> {
    await changeJob(this.store('changeDelay'), this.queueName, this.id, { kind: 'delay', delay: delayArg(ms) }, 'changeDelay');
  }

  /**
   * A waiting job moves to the end of its new priority (the front with
   * `lifo`), within its group if it has one; a delayed job keeps them for when
   * it is due. JobStateError in any other state.
   */
  async changePriority(opts: { readonly priority?: number; readonly lifo?: boolean }): Promise<void> {
    const { priority, lifo } = priorityArg(opts);
    await changeJob(this.store('changePriority'), this.queueName, this.id, { kind: 'priority', priority, lifo }, 'changePriority');
    // The field this call sets follows it (as data and progress do); the rest of the snapshot stays as read.
    (this as unknown as { priority: number }).priority = priority;
  }

  /**
   * Replaces the payload of a job no worker holds (waiting, delayed,
   * waiting-children, or failed before a retry); `job.data` is the new value
   * once this resolves. JobStateError for an active or finished job.
   */
  async updateData(data: Data): Promise<void> {
    const encoded = encodeData(data, this.#maxPayloadBytes);
    await changeJob(this.store('updateData'), this.queueName, this.id, { kind: 'data', data: encoded }, 'updateData');
    (this as unknown as { data: unknown }).data = JSON.parse(encoded) as unknown;
  }

  /** Records progress on a job that has not started (a `progress` event follows); `job.progress` is the new value. */
  async updateProgress(value: unknown): Promise<void> {
    await changeJob(this.store('updateProgress'), this.queueName, this.id, { kind: 'progress', progress: encodeJson(value, 'progress') }, 'updateProgress');
    (this as unknown as { progress: unknown }).progress = value;
  }

  /** The job's log lines, oldest first. */
  getLogs(): Promise<string[]> {
    return this.store('getLogs').getLogs(this.queueName, this.id);
  }

  private async isIn(state: JobState): Promise<boolean> {
    return (await this.getState()) === state;
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

  /** BullMQ's name for getChildrenResults(). */
  getChildrenValues<T = unknown>(): Promise<Record<string, T>> {
    return this.getChildrenResults<T>();
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
