import type { Job } from '../lib/index.js';

/** What GET /jobs/:queue/:id answers: state, attempts, result or error. */
export interface JobView {
  readonly queue: string;
  readonly id: string;
  readonly name: string;
  readonly state: string;
  readonly attempts: number;
  readonly maxAttempts: number;
  readonly progress?: unknown;
  readonly result?: unknown;
  readonly error?: string;
  readonly reason?: string;
}

export function jobView(job: Job): JobView {
  return {
    queue: job.queueName,
    id: job.id,
    name: job.name,
    state: job.state,
    attempts: job.attempt,
    maxAttempts: job.maxAttempts,
    progress: job.progress,
    result: job.result,
    error: job.error?.message,
    reason: job.error?.reason,
  };
}
