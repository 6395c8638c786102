import type { JobState } from './store.js';

/**
 * Changes to one job that no worker holds (Job handles, lib/engine/job.ts):
 * each is one transition of its own (RedisStore: one script each, lua/
 * remove-job, promote-job, change-delay, change-priority, set-data,
 * set-progress), refused by state rather than ignored.
 */
export type JobChange =
  | { readonly kind: 'remove' }
  | { readonly kind: 'promote' }
  /** ms from now; 0: waiting now. */
  | { readonly kind: 'delay'; readonly delay: number }
  | { readonly kind: 'priority'; readonly priority: number; readonly lifo: boolean }
  /** The new payload, JSON. */
  | { readonly kind: 'data'; readonly data: string }
  /** Progress, JSON. */
  | { readonly kind: 'progress'; readonly progress: string };

export type JobChangeKind = JobChange['kind'];

/**
 * What a change did: `changed` (the job's state after it; for remove, the
 * state it was removed from), `refused` in the job's state, a parent whose
 * children are still pending, an unfinished flow child (remove), or no such job.
 */
export type JobChangeOutcome =
  | { readonly status: 'changed'; readonly state: JobState }
  | { readonly status: 'refused'; readonly state: JobState }
  | { readonly status: 'children-pending'; readonly state: JobState; readonly pending: number }
  | { readonly status: 'flow-child'; readonly state: JobState }
  | { readonly status: 'unknown' };

/** One bounded step of queue.drain(). */
export interface DrainQuery {
  /** Delayed jobs go too. */
  readonly delayed: boolean;
  /** Jobs to take at most in this step. */
  readonly batch: number;
  /** '' at first, then the step's returned cursor. */
  readonly cursor: string;
}

export interface DrainStep {
  /** Jobs removed (flow children: cancelled, so their parents hear). */
  readonly removed: number;
  readonly done: boolean;
  readonly cursor: string;
}

export type ObliterateOutcome =
  | { readonly status: 'obliterated' }
  /** Refused: jobs are active (obliterate without force). Nothing was deleted. */
  | { readonly status: 'active'; readonly active: number };

/** The Store methods behind Job handles and queue housekeeping (lib/store/store.ts extends it). */
export interface JobChanges {
  /** The job's state, or null for no such job: one field read. */
  getState(queue: string, id: string): Promise<JobState | null>;
  changeJob(queue: string, id: string, change: JobChange): Promise<JobChangeOutcome>;
  /** One bounded step of removing the waiting (and delayed) jobs; call again with the returned cursor until done. */
  drain(queue: string, query: DrainQuery): Promise<DrainStep>;
  /**
   * Deletes the queue and everything under it (jobs, logs, flows' keys,
   * schedulers, events, metrics, workers, dedup and once records, settings),
   * in bounded steps; refused while jobs are active unless `force`.
   */
  obliterate(queue: string, force: boolean): Promise<ObliterateOutcome>;
}
