import type { AddOutcome, JobRecord, JobState, NewJob, Store } from '../store/store.js';
import { Job } from './job.js';

/** @internal The snapshot of a job just written (FlowProducer uses it too). */
export function recordOf(job: NewJob, createdAt: number, runAt: number, state: JobState = 'waiting'): JobRecord {
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    state,
    attempt: 0,
    maxAttempts: job.maxAttempts,
    createdAt,
    runAt,
    deadline: job.deadline || undefined,
    priority: job.priority,
    lifo: job.lifo,
    stalled: 0,
    group: job.group,
    cancelRequested: false,
  };
}

/** The Job an add returns: the new job (with its data as given), the existing one a jobId or dedup key names, or the id a dedup window outlived. */
export function addedJob<Data, Result>(queue: string, store: Store, outcome: AddOutcome, sent: NewJob, data: Data, maxPayloadBytes?: number): Job<Data, Result> {
  if (!outcome.created) {
    if (outcome.existing) return new Job<Data, Result>(queue, outcome.existing, undefined, store, maxPayloadBytes);
    // The dedup window outlived its job: report the id the window names.
    return new Job<Data, Result>(queue, { ...recordOf(sent, 0, 0), id: outcome.id, state: 'completed' }, undefined, store, maxPayloadBytes);
  }
  // outcome.id: the store may have numbered the job anew (its numbered id was taken, lua/includes/ids).
  return new Job<Data, Result>(queue, { ...recordOf(sent, outcome.createdAt, outcome.runAt, outcome.state), id: outcome.id }, { value: data }, store, maxPayloadBytes);
}
