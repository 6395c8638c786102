import { Cron } from 'croner';
import type { MissedPolicy } from '../store/scheduler-store.js';
import type { NewJob } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import { assertKnownKeys, assertPlainObject, describe, type JobOptions } from './options.js';

/**
 * When a scheduler ticks: a cron pattern (5 fields, or 6 with seconds) in a
 * time zone, or every N ms. Ticks before startAt or after endAt do not
 * happen; after `limit` ticks ran the scheduler ends.
 */
export interface SchedulerRepeat {
  readonly cron?: string;
  /** Interval in ms: ticks fall at startAt + k * every (epoch multiples of every without startAt). */
  readonly every?: number;
  /** IANA time zone of the cron pattern, e.g. 'Europe/Paris'. Default UTC. */
  readonly tz?: string;
  readonly startAt?: Date | number;
  readonly endAt?: Date | number;
  readonly limit?: number;
  /** Ticks that fell while no worker ran: 'skip' them, run 'once' for them all (default), or run 'all' (at most 50). */
  readonly missed?: MissedPolicy;
}

/** Job options a tick job may take: its id, time and dedup come from the tick. */
export type SchedulerJobOptions = Omit<JobOptions, 'jobId' | 'delay' | 'runAt' | 'deadline' | 'dedup' | 'idempotencyKey'>;

/** The job every tick adds. */
export interface SchedulerJob<Data = unknown> {
  readonly name: string;
  readonly data?: Data;
  readonly opts?: SchedulerJobOptions;
}

/** A repeat checked and reduced to epoch ms. */
export interface NormalizedRepeat {
  readonly cron?: string;
  readonly every?: number;
  readonly tz?: string;
  readonly startAt?: number;
  readonly endAt?: number;
  readonly limit?: number;
  readonly missed: MissedPolicy;
}

const REPEAT_KEYS = ['cron', 'every', 'tz', 'startAt', 'endAt', 'limit', 'missed'];
const JOB_KEYS = ['name', 'data', 'opts'];
const TICK_OWNED = ['jobId', 'delay', 'runAt', 'deadline', 'dedup', 'idempotencyKey'];
const MISSED: readonly MissedPolicy[] = ['skip', 'once', 'all'];
/** Cron times computed ahead and stored with the scheduler (Redis refills under half of it). */
export const CRON_AHEAD = 50;

export function validateSchedulerId(id: unknown): string {
  if (typeof id !== 'string' || id.length === 0 || id.length > 200) {
    throw new InvalidArgumentError('scheduler id', `must be a string of 1 to 200 characters, got ${describe(id)}`);
  }
  return id;
}

function epoch(value: unknown, field: string): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 0) {
    throw new InvalidArgumentError(field, `must be a Date or epoch ms, got ${describe(value)}`);
  }
  return ms;
}

/** Checks a repeat; errors name the field (`repeat.cron`, `repeat.tz`, ...). */
export function normalizeRepeat(repeat: unknown): NormalizedRepeat {
  assertPlainObject(repeat, 'repeat');
  assertKnownKeys(repeat, REPEAT_KEYS, 'repeat');
  const r = repeat as SchedulerRepeat;
  if ((r.cron === undefined) === (r.every === undefined)) {
    throw new InvalidArgumentError('repeat.cron', 'and repeat.every: exactly one is required', "pass { cron: '0 8 * * *' } or { every: 60_000 }");
  }
  if (r.tz !== undefined && r.cron === undefined) throw new InvalidArgumentError('repeat.tz', 'applies to cron patterns only', 'drop tz or use cron');
  if (r.tz !== undefined) checkZone(r.tz);
  if (r.cron !== undefined) checkCron(r.cron, r.tz);
  if (r.every !== undefined && (typeof r.every !== 'number' || !Number.isInteger(r.every) || r.every < 10)) {
    throw new InvalidArgumentError('repeat.every', `must be a whole number of ms >= 10, got ${describe(r.every)}`);
  }
  const startAt = r.startAt === undefined ? undefined : epoch(r.startAt, 'repeat.startAt');
  const endAt = r.endAt === undefined ? undefined : epoch(r.endAt, 'repeat.endAt');
  if (startAt !== undefined && endAt !== undefined && endAt < startAt) throw new InvalidArgumentError('repeat.endAt', 'is before repeat.startAt');
  if (r.limit !== undefined && (typeof r.limit !== 'number' || !Number.isInteger(r.limit) || r.limit < 1)) {
    throw new InvalidArgumentError('repeat.limit', `must be a positive integer, got ${describe(r.limit)}`);
  }
  if (r.missed !== undefined && !MISSED.includes(r.missed)) {
    throw new InvalidArgumentError('repeat.missed', `must be 'skip', 'once' or 'all', got ${describe(r.missed)}`);
  }
  return {
    ...(r.cron !== undefined && { cron: r.cron.trim() }),
    ...(r.every !== undefined && { every: r.every }),
    ...(r.tz !== undefined && { tz: r.tz }),
    ...(startAt !== undefined && { startAt }),
    ...(endAt !== undefined && { endAt }),
    ...(r.limit !== undefined && { limit: r.limit }),
    missed: r.missed ?? 'once',
  };
}

/** Checks the job a scheduler adds, apart from what Queue.prepare checks (payload, options). */
export function checkSchedulerJob(job: unknown): asserts job is SchedulerJob {
  assertPlainObject(job, 'job');
  assertKnownKeys(job, JOB_KEYS, 'job');
  if (job.opts !== undefined) {
    assertPlainObject(job.opts, 'job.opts');
    for (const key of TICK_OWNED) {
      if (key in job.opts) throw new InvalidArgumentError(`job.opts.${key}`, 'is set by each tick', `remove ${key} from the scheduler's job options`);
    }
  }
}

function checkZone(tz: unknown): void {
  if (typeof tz !== 'string' || tz.length === 0) throw new InvalidArgumentError('repeat.tz', `must be an IANA time zone name, got ${describe(tz)}`);
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new InvalidArgumentError('repeat.tz', `"${tz}" is not a known time zone`, "use an IANA name such as 'Europe/Paris' or 'UTC'");
  }
}

function checkCron(pattern: unknown, tz: string | undefined): void {
  if (typeof pattern !== 'string' || pattern.trim().length === 0) throw new InvalidArgumentError('repeat.cron', `must be a cron pattern, got ${describe(pattern)}`);
  try {
    new Cron(pattern, { paused: true, ...(tz !== undefined && { timezone: tz }) });
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new InvalidArgumentError('repeat.cron', `"${pattern}" is not a valid cron pattern (${reason})`, "use 5 fields (minute hour day month weekday) or 6 with seconds first, e.g. '0 8 * * *'");
  }
}

/**
 * The next `count` tick times (epoch ms) of a cron pattern strictly after
 * `after`, in its time zone, within endAt. Croner follows the wall clock
 * across DST changes: a time skipped in spring runs at the first valid
 * minute after it, a time repeated in autumn runs once.
 */
export function cronTimes(repeat: NormalizedRepeat, after: number, count = CRON_AHEAD): number[] {
  if (repeat.cron === undefined) return [];
  const from = repeat.startAt !== undefined ? Math.max(after, repeat.startAt - 1) : after;
  const cron = new Cron(repeat.cron, { paused: true, ...(repeat.tz !== undefined && { timezone: repeat.tz }) });
  const times = cron.nextRuns(count, new Date(from)).map((d) => d.getTime());
  return repeat.endAt === undefined ? times : times.filter((t) => t <= repeat.endAt!);
}

/** The canonical text of a definition: equal definitions give equal text, so re-upserting one changes nothing. */
export function schedulerSpec(repeat: NormalizedRepeat, job: NewJob): string {
  const { name, data, opts, priority, lifo, maxAttempts, removeOnComplete, removeOnFail, group } = job;
  return JSON.stringify({ repeat, job: { name, data, opts, priority, lifo, maxAttempts, removeOnComplete, removeOnFail, group } });
}

/** What schedulerSpec() wrote, read back for getScheduler(). */
export function parseSpec(spec: string): { readonly repeat: NormalizedRepeat; readonly job: { readonly name: string; readonly data: string; readonly opts: string } } {
  return JSON.parse(spec) as ReturnType<typeof parseSpec>;
}
