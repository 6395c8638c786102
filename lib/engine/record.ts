import type { JobRecord, NewJob } from '../store/store.js';

/** @internal The snapshot of a job just written (FlowProducer uses it too). */
export function recordOf(job: NewJob, createdAt: number, runAt: number): JobRecord {
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    state: 'waiting',
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
