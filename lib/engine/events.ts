import type { JobState } from '../store/store.js';
import type { ActiveJob } from './active-job.js';

/**
 * What a Worker emits, each after the matching write was acknowledged by Redis.
 * `failed` fires for every failed attempt; `next` says whether it will be retried.
 */
export interface WorkerEvents<Data = unknown, Result = unknown> {
  active: [job: ActiveJob<Data, Result>];
  completed: [job: ActiveJob<Data, Result>, result: Result];
  failed: [job: ActiveJob<Data, Result>, error: Error, next: 'retry' | 'dead'];
  cancelled: [job: ActiveJob<Data, Result>];
  /** The handler threw RateLimitedError: the job waits `retryAfter` ms (attempt not spent) and the queue pauses that long. */
  rateLimited: [job: ActiveJob<Data, Result>, retryAfter: number];
  /** The handler threw DelayedError: the job waits `delay` ms (attempt not spent); the queue goes on. */
  delayed: [job: ActiveJob<Data, Result>, delay: number];
  /** This worker's reaper took a job whose holder died or blocked past its lease; `state` is where it went. */
  stalled: [jobId: string, state: JobState];
  progress: [job: ActiveJob<Data, Result>, progress: unknown];
  /** worker.pause(): this worker stopped claiming. */
  paused: [];
  /** worker.resume(): it claims again. */
  resumed: [];
  /** The queue had nothing more to claim. */
  drained: [];
  error: [error: Error];
  closed: [];
}

export type WorkerEventName = keyof WorkerEvents;
