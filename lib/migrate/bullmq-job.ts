import type { Backoff } from '../engine/backoff.js';
import { normalizeJobOptions, storedOptions, type JobOptions, type Retention } from '../engine/options.js';
import { MAX_PRIORITY } from '../engine/options.js';
import { NUMBERED_ID } from '../engine/ids.js';
import type { ChildFailure, ChildRef, ImportedJob, ImportState, StoredFailurePolicy } from '../store/store.js';
import { parseJobKey, type BullJob } from './bullmq-source.js';

/**
 * The Spool id of a BullMQ job: a custom id is kept as it is; BullMQ's own
 * numbers (1, 2, ...) become `bullmq:<n>`, since Spool keeps decimal ids for
 * the ones it gives (lib/engine/ids). BullMQ refuses custom ids that are
 * integers or hold a colon outside its `repeat:<key>:<ms>` ids, so the two
 * kinds never meet.
 */
export function spoolIdOf(bullId: string): string {
  return NUMBERED_ID.test(bullId) ? `bullmq:${bullId}` : bullId;
}

/** Options BullMQ stores that the mapping reads (the rest are listed as not carried). */
const READ = new Set(['attempts', 'backoff', 'delay', 'priority', 'lifo', 'jobId', 'removeOnComplete', 'removeOnFail', 'timestamp', 'parent', 'prevMillis', 'repeatJobKey', 'fpof', 'cpof', 'idof', 'rdof', 'failParentOnFailure', 'continueParentOnFailure', 'ignoreDependencyOnFailure', 'removeDependencyOnFailure', 'repeat', 'parentKey']);

/**
 * BullMQ stores a few options under short names (optsEncodeMap in its
 * src/utils, the same in 5 and 6): a job's report names them as they were
 * written, `keepLogs`, not `kl`.
 */
const BULL_OPTION_NAMES: Readonly<Record<string, string>> = { kl: 'keepLogs', de: 'deduplication' };

/** What a job needs, besides its hash, to be mapped. */
export interface MapInput {
  readonly job: BullJob;
  readonly queue: string;
  readonly state: ImportState;
  /** delayed: its due time (ms), read from BullMQ's delayed index. */
  readonly dueAt?: number;
  readonly prefix: string;
  /** The flow parent (already imported), with the child's policy; absent for a job without one. */
  readonly parent?: ChildRef & { readonly policy: StoredFailurePolicy };
  /** waiting-children: its pending children, as Spool refs. */
  readonly children?: readonly ChildRef[];
  /** Children failures the parent carries (ignoreDependencyOnFailure). */
  readonly failures?: readonly { readonly child: ChildRef; readonly failure: ChildFailure }[];
}

export interface Mapped {
  readonly job: ImportedJob;
  /** What of the BullMQ job does not carry over, one line each. */
  readonly notes: string[];
}

function int(value: string | undefined, fallback = 0): number {
  const n = Number(value);
  return value !== undefined && Number.isFinite(n) ? Math.floor(n) : fallback;
}

function parseOpts(raw: string | undefined): Record<string, unknown> {
  try {
    const opts: unknown = JSON.parse(raw ?? '{}');
    return opts !== null && typeof opts === 'object' && !Array.isArray(opts) ? (opts as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** BullMQ's KeepJobs (true, a count, { age (s), count }) has Spool's Retention shape; unset keeps every job, as BullMQ does. */
function retentionOf(value: unknown, field: string, notes: string[]): Retention {
  if (value === undefined) return false;
  if (typeof value === 'boolean' || typeof value === 'number') return value;
  if (value !== null && typeof value === 'object') {
    const { age, count } = value as { age?: unknown; count?: unknown };
    if ((age === undefined || typeof age === 'number') && (count === undefined || typeof count === 'number')) {
      return { ...(age !== undefined && { age }), ...(count !== undefined && { count }) };
    }
  }
  notes.push(`${field} ${JSON.stringify(value)} not carried: every finished job is kept`);
  return false;
}

function backoffOf(value: unknown, notes: string[]): Backoff | number | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'number') return value;
  if (value !== null && typeof value === 'object') {
    const b = value as { type?: unknown; delay?: unknown; jitter?: unknown };
    if ((b.type === 'fixed' || b.type === 'exponential') && typeof b.delay === 'number') {
      return { type: b.type, delay: b.delay, ...(typeof b.jitter === 'number' && { jitter: b.jitter }) };
    }
    if (typeof b.type === 'string') {
      notes.push(`backoff '${b.type}' becomes { type: 'custom' }: the Worker's backoffStrategy spaces its retries`);
      return { type: 'custom' };
    }
  }
  notes.push(`backoff ${JSON.stringify(value)} not carried`);
  return undefined;
}

/** The policy a flow child declared; BullMQ's default (the parent waits for ever) has no Spool twin. */
export function policyOf(opts: Record<string, unknown>, notes: string[]): StoredFailurePolicy {
  if (opts.fpof === true || opts.failParentOnFailure === true) return 'fail';
  if (opts.cpof === true || opts.continueParentOnFailure === true) return 'continue';
  if (opts.idof === true || opts.ignoreDependencyOnFailure === true) return 'ignore';
  if (opts.rdof === true || opts.removeDependencyOnFailure === true) return 'remove';
  notes.push("no failure policy: BullMQ's parent would wait for ever on a failed child; Spool fails the parent (failParentOnFailure)");
  return 'fail';
}

/** A dead letter's error code: the class named by the stack's first line (TypeError: ...), else Error. */
function codeOf(stack: string): string {
  return /^([A-Za-z_$][\w$]*(?:Error|Exception))\b/.exec(stack)?.[1] ?? 'Error';
}

/** The stack BullMQ kept last (its `stacktrace` is a JSON list, one per failed attempt). */
function lastStack(raw: string | undefined): string {
  try {
    const list: unknown = JSON.parse(raw ?? '[]');
    return Array.isArray(list) && typeof list[list.length - 1] === 'string' ? (list[list.length - 1] as string) : '';
  } catch {
    return '';
  }
}

/**
 * One BullMQ job as Spool imports it. Options are checked and encoded by
 * the engine's own rules (normalizeJobOptions), so an imported job is
 * stored as Queue.add() would store it, plus its history.
 */
export function mapJob(input: MapInput, now: number): Mapped {
  const { job, state } = input;
  const h = job.hash;
  const notes: string[] = [];
  const opts = parseOpts(h.opts);
  const dedup = h.deid ?? (opts.de as unknown);
  // The deduplication id has its own line below.
  for (const key of Object.keys(opts)) if (!READ.has(key) && !(key === 'de' && dedup)) notes.push(`option ${BULL_OPTION_NAMES[key] ?? key} not carried`);
  if (job.logs > 0) notes.push(`${job.logs} log line(s) not carried`);
  if (h.progress !== undefined && h.progress !== '0' && h.progress !== '') notes.push(`progress ${h.progress} not carried`);
  if (dedup) notes.push('deduplication id not carried (a Spool dedup key lives only while its job waits)');

  let priority = int(h.priority, typeof opts.priority === 'number' ? opts.priority : 0);
  if (priority > MAX_PRIORITY) {
    notes.push(`priority ${priority} lowered to ${MAX_PRIORITY}, Spool's lowest`);
    priority = MAX_PRIORITY;
  }
  const attempt = int(h.atm ?? h.attemptsMade);
  let attempts = typeof opts.attempts === 'number' && opts.attempts >= 1 ? Math.floor(opts.attempts) : 1;
  if ((state === 'waiting' || state === 'delayed') && attempt >= attempts) {
    // BullMQ runs a waiting job whatever its count says; Spool would refuse the attempt.
    notes.push(`attempts raised from ${attempts} to ${attempt + 1}: ${attempt} were made and the job still waits`);
    attempts = attempt + 1;
  }
  const options: JobOptions = {
    attempts,
    priority,
    lifo: opts.lifo === true,
    removeOnComplete: retentionOf(opts.removeOnComplete, 'removeOnComplete', notes),
    removeOnFail: retentionOf(opts.removeOnFail, 'removeOnFail', notes),
  };
  const backoff = backoffOf(opts.backoff, notes);
  let normalized;
  try {
    normalized = normalizeJobOptions(backoff === undefined ? options : { ...options, backoff }, undefined, 'opts', now);
  } catch (err) {
    notes.push(`backoff not carried: ${err instanceof Error ? err.message : String(err)}`);
    normalized = normalizeJobOptions(options, undefined, 'opts', now);
  }
  const createdAt = int(h.timestamp, now);
  const failedStack = lastStack(h.stacktrace);
  const imported: ImportedJob = {
    id: spoolIdOf(job.id),
    name: h.name ?? '',
    data: h.data ?? '{}',
    opts: JSON.stringify(storedOptions(normalized)),
    state,
    createdAt,
    runAt: state === 'delayed' ? (input.dueAt ?? createdAt + int(h.delay)) : createdAt + int(h.delay),
    attempt,
    maxAttempts: normalized.attempts,
    priority: normalized.priority,
    lifo: normalized.lifo,
    removeOnComplete: normalized.removeOnComplete,
    removeOnFail: normalized.removeOnFail,
    ...(input.parent && { parent: input.parent }),
    ...(input.children && { children: input.children }),
    ...(input.failures && input.failures.length > 0 && { failures: input.failures }),
    ...resultsOf(job, input.prefix, notes),
    ...(state === 'failed' && {
      finishedAt: int(h.finishedOn, now),
      error: { reason: 'error', message: h.failedReason ?? '', stack: failedStack, code: codeOf(failedStack) },
    }),
    ...(state === 'completed' && { finishedAt: int(h.finishedOn, now), result: h.returnvalue ?? 'null' }),
  };
  return { job: imported, notes };
}

/** Results of the children a parent saw complete (BullMQ's `processed` hash), keyed by Spool ref. */
function resultsOf(job: BullJob, prefix: string, notes: string[]): Pick<ImportedJob, 'results'> {
  const results: { child: ChildRef; result: string }[] = [];
  for (const [childKey, result] of Object.entries(job.processed)) {
    const child = parseJobKey(prefix, childKey);
    if (child) results.push({ child: { queue: child.queue, id: spoolIdOf(child.id) }, result });
    else notes.push(`result of child ${childKey} not carried: its key is not under prefix "${prefix}"`);
  }
  return results.length > 0 ? { results } : {};
}
