import { parseRetention } from '../store/add-records.js';
import type { NewFlowNode, NewJob } from '../store/store.js';
import type { MemNewJob } from './memory-jobs.js';
import { KEEP_ALL, type Retention } from './memory-state.js';

/**
 * The one place where the Store interface's Redis-shaped encodings are read
 * (retention as "count,ageMs" strings today): MemoryStore's transitions work
 * on typed values, so a change of the interface's encodings lands here only.
 */
export function retention(spec: string | undefined): Retention {
  const { count, age } = parseRetention(spec);
  return count === -1 && age === -1 ? KEEP_ALL : { count, age };
}

export function decodeNewJob(job: NewJob): MemNewJob {
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    delay: job.delay,
    priority: job.priority,
    lifo: job.lifo,
    maxAttempts: job.maxAttempts,
    deadline: job.deadline,
    ...(job.dedup && { dedup: job.dedup }),
    rc: retention(job.removeOnComplete),
    rf: retention(job.removeOnFail),
    ...(job.group !== undefined && job.group !== '' && { group: job.group }),
    ...(job.traceContext !== undefined && { traceContext: job.traceContext }),
    ...(job.reportTaken && { reportTaken: true }),
  };
}

export function decodeFlowNode(node: NewFlowNode): MemNewJob {
  return decodeNewJob(node.job);
}
