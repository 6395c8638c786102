import { clockOf } from '../store/clock.js';
import type { SchedulerRecord, SchedulerStore } from '../store/scheduler-store.js';
import type { AddBatchOutcome, NewJob, Store } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import type { StoredJobOptions } from './options.js';
import {
  checkSchedulerJob,
  cronTimes,
  normalizeRepeat,
  parseSpec,
  schedulerSpec,
  validateSchedulerId,
  type NormalizedRepeat,
  type SchedulerJob,
} from './scheduler-spec.js';

/** A scheduler as getScheduler() / getSchedulers() report it. */
export interface SchedulerInfo<Data = unknown> {
  readonly id: string;
  /** The repeat as checked: times in epoch ms, `missed` filled in. */
  readonly repeat: NormalizedRepeat;
  readonly job: { readonly name: string; readonly data: Data; readonly opts: StoredJobOptions };
  /** Time of the pending tick (its job id is `<id>:<ms>`); null when the scheduler has ended. */
  readonly next: number | null;
  /** Ticks run, and ticks dropped by the missed policy, since the definition last changed. */
  readonly count: number;
  readonly skipped: number;
  readonly lastJobId?: string;
  readonly lastTickAt?: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Stopped with pauseScheduler() (no pending tick) until resumeScheduler(). */
  readonly paused: boolean;
}

/** Whether upsert wrote a new definition (false: the same one was stored already) and the pending tick. */
export interface UpsertResult {
  readonly changed: boolean;
  readonly next: number | null;
}

/** Turns a scheduler's job into the NewJob every tick copies (the queue's prepare: defaults, validation, payload size). */
export type PrepareJob = (job: SchedulerJob) => Promise<NewJob>;

/** The scheduler calls of one Queue (Queue delegates here). */
export class Schedulers<Data = unknown> {
  constructor(
    private readonly queue: string,
    private readonly store: Store,
    private readonly prepare: PrepareJob,
  ) {}

  async upsert(id: string, repeat: unknown, job: unknown): Promise<UpsertResult> {
    validateSchedulerId(id);
    const r = normalizeRepeat(repeat);
    checkSchedulerJob(job);
    const prepared = await this.prepare(job);
    // The store's clock: an in-memory store's may run ahead of the system's.
    const times = cronTimes(r, clockOf(this.store).now() - 1000);
    if (r.cron !== undefined && times.length === 0) {
      throw new InvalidArgumentError('repeat.cron', `"${r.cron}" has no tick ${r.endAt !== undefined ? 'before repeat.endAt' : 'in the future'}`);
    }
    return this.schedulerStore().upsert(this.queue, {
      id,
      spec: schedulerSpec(r, prepared),
      kind: r.cron !== undefined ? 'cron' : 'every',
      every: r.every ?? 0,
      anchor: r.startAt ?? 0,
      endAt: r.endAt ?? 0,
      limit: r.limit ?? 0,
      missed: r.missed,
      job: prepared,
      times,
    });
  }

  async get(id: string): Promise<SchedulerInfo<Data> | null> {
    const record = await this.schedulerStore().get(this.queue, validateSchedulerId(id));
    return record && toInfo<Data>(record);
  }

  async list(): Promise<SchedulerInfo<Data>[]> {
    return (await this.schedulerStore().list(this.queue)).map((r) => toInfo<Data>(r));
  }

  remove(id: string): Promise<boolean> {
    return this.schedulerStore().remove(this.queue, validateSchedulerId(id));
  }

  /** Pauses a scheduler, keeping it: false for an unknown id. */
  async pause(id: string): Promise<boolean> {
    const store = this.schedulerStore();
    if (!store.pause) throw new InvalidArgumentError('Queue options.store', 'cannot pause a scheduler', 'use a RedisStore or a MemoryStore');
    return (await store.pause(this.queue, validateSchedulerId(id))) !== 'unknown';
  }

  /** Resumes a paused scheduler: its next tick after now (null when none is left, or unknown id: see getScheduler()). */
  async resume(id: string): Promise<{ readonly known: boolean; readonly next: number | null }> {
    const store = this.schedulerStore();
    if (!store.resume) throw new InvalidArgumentError('Queue options.store', 'cannot resume a scheduler', 'use a RedisStore or a MemoryStore');
    const { outcome, next } = await store.resume(this.queue, validateSchedulerId(id));
    return { known: outcome !== 'unknown', next };
  }

  /**
   * Adds one job from the scheduler's template now, id `<id>:<now ms>` as a
   * tick's, outside its cadence: the pending tick, the count and the limit
   * stay as they are. Null for an unknown id; the outcome of the add otherwise.
   */
  async runNow(id: string): Promise<AddBatchOutcome | null> {
    const record = await this.schedulerStore().get(this.queue, validateSchedulerId(id));
    if (!record) return null;
    // schedulerSpec() stored the prepared job's fields beside name, data and opts.
    const { job } = JSON.parse(record.spec) as { job: Omit<NewJob, 'id' | 'delay' | 'deadline'> };
    return this.store.add(this.queue, [{ ...job, id: `${id}:${clockOf(this.store).now()}`, delay: 0, deadline: 0 }]);
  }

  private schedulerStore(): SchedulerStore {
    if (!this.store.schedulers) throw new InvalidArgumentError('Queue options.store', 'has no scheduler support', 'use a RedisStore or a MemoryStore');
    return this.store.schedulers;
  }
}

/**
 * Computes more cron times for schedulers whose list runs low (the promote
 * script names them) and appends them; racing calls append each time once.
 * `stopped`: the caller is closing; the rest are left to the next promote.
 */
export async function refillSchedulers(store: Store, queue: string, ids: readonly string[], stopped: () => boolean = () => false): Promise<void> {
  const schedulers = store.schedulers;
  if (!schedulers) return;
  for (const id of ids) {
    if (stopped()) return;
    const record = await schedulers.get(queue, id);
    if (!record) continue;
    const { repeat } = parseSpec(record.spec);
    const last = record.times.at(-1) ?? record.next ?? 0;
    await schedulers.refill(queue, id, record.spec, cronTimes(repeat, Math.max(last, clockOf(store).now() - 1000)));
  }
}

function toInfo<Data>(record: SchedulerRecord): SchedulerInfo<Data> {
  const { repeat, job } = parseSpec(record.spec);
  return {
    id: record.id,
    repeat,
    job: { name: job.name, data: JSON.parse(job.data) as Data, opts: JSON.parse(job.opts) as StoredJobOptions },
    next: record.next,
    count: record.count,
    skipped: record.skipped,
    ...(record.lastJobId !== undefined && { lastJobId: record.lastJobId }),
    ...(record.lastTickAt !== undefined && { lastTickAt: record.lastTickAt }),
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    paused: record.paused === true,
  };
}
