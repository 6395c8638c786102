import type { NewJob } from './store.js';

/** What happens to ticks that fell while no worker promoted: drop them, run one job for them all, or run each (bounded). */
export type MissedPolicy = 'skip' | 'once' | 'all';

/** One scheduler as the engine writes it: the definition, checked and encoded. */
export interface SchedulerWrite {
  readonly id: string;
  /** Canonical JSON of the whole definition: an upsert with the same spec changes nothing. */
  readonly spec: string;
  readonly kind: 'cron' | 'every';
  /** Interval ms (every); ticks fall at anchor + k * every. */
  readonly every: number;
  readonly anchor: number;
  /** No tick after this ms; 0 = none. */
  readonly endAt: number;
  /** At most this many tick jobs run; 0 = none. */
  readonly limit: number;
  readonly missed: MissedPolicy;
  /** The job every tick adds (its id and delay are the tick's). */
  readonly job: NewJob;
  /** Cron: upcoming tick times (ms, ascending). */
  readonly times: readonly number[];
}

/** One scheduler as stored. */
export interface SchedulerRecord {
  readonly id: string;
  readonly spec: string;
  /** The pending tick's time, null when none (ended, or waiting for cron times). */
  readonly next: number | null;
  /** Cron times listed after the pending tick. */
  readonly times: readonly number[];
  /** Ticks run so far and ticks dropped by the missed policy, since the last change of spec. */
  readonly count: number;
  readonly skipped: number;
  /** Id and tick time of the last tick that ran. */
  readonly lastJobId?: string;
  readonly lastTickAt?: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Stopped by pause() until resume(): no pending tick. */
  readonly paused?: boolean;
}

/**
 * The store's side of schedulers: each call one script (lua/scheduler-*.lua),
 * and the promote script advances due schedulers. Optional on a Store: an
 * engine over a store without it refuses scheduler calls.
 */
export interface SchedulerStore {
  /** Creates or replaces; `changed` is false when the same spec was already stored. */
  upsert(queue: string, scheduler: SchedulerWrite): Promise<{ readonly changed: boolean; readonly next: number | null }>;
  /** Appends cron times after the last listed one; -1 when the scheduler is gone or has another spec. */
  refill(queue: string, id: string, spec: string, times: readonly number[]): Promise<number>;
  remove(queue: string, id: string): Promise<boolean>;
  get(queue: string, id: string): Promise<SchedulerRecord | null>;
  /** Every scheduler of the queue, by id. */
  list(queue: string): Promise<SchedulerRecord[]>;
  /** Stops a scheduler, keeping it (its pending tick goes): 'paused', 'already', or 'unknown'. Optional: a store without it cannot pause one. */
  pause?(queue: string, id: string): Promise<'paused' | 'already' | 'unknown'>;
  /** Arms a paused scheduler's next tick after now: the outcome and that tick's time. */
  resume?(queue: string, id: string): Promise<{ readonly outcome: 'resumed' | 'running' | 'unknown'; readonly next: number | null }>;
}
