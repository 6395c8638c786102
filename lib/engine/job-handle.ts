import type { JobChange, JobState, Store } from '../store/store.js';
import { InvalidArgumentError, PayloadTooLargeError } from './errors.js';
import { ChildrenPendingError, JobNotFoundError } from './flow-errors.js';
import { JobStateError } from './job-errors.js';
import { encodeJson } from './json.js';
import { MAX_PRIORITY, assertKnownKeys, assertPlainObject, describe, nonNegativeNumber } from './options.js';

/** The states each change accepts (the scripts' rules, lua/remove-job ... set-progress), for the errors that name them. */
const ALLOWED: Record<JobChange['kind'], readonly JobState[]> = {
  remove: ['waiting', 'delayed', 'completed', 'failed', 'cancelled'],
  promote: ['delayed'],
  delay: ['waiting', 'delayed'],
  priority: ['waiting', 'delayed'],
  data: ['waiting', 'delayed', 'waiting-children', 'failed'],
  progress: ['waiting', 'delayed', 'waiting-children'],
};

/** Why a running job refuses a producer's change: its worker holds it. */
const ACTIVE_HINT: Partial<Record<JobChange['kind'], string>> = {
  remove: 'its worker holds it: cancel it (queue.cancel) and remove it once it is cancelled',
  data: "its worker holds it: the handler's own job.updateData() writes under its lease",
  progress: "its worker holds it: the handler's own job.updateProgress() reports it",
};

const PARENT_HINT = 'cancel it (its unfinished children are cancelled too)';

/** One change to a job no worker holds: resolves the job's state after it, or throws the typed error that says why it was refused. */
export async function changeJob(store: Store, queue: string, id: string, change: JobChange, action: string): Promise<JobState> {
  const outcome = await store.changeJob(queue, id, change);
  switch (outcome.status) {
    case 'changed':
      return outcome.state;
    case 'unknown':
      throw new JobNotFoundError(queue, id);
    case 'children-pending':
      throw new ChildrenPendingError(queue, id, outcome.pending);
    case 'flow-child':
      throw new JobStateError(queue, id, outcome.state, action, ['completed', 'failed', 'cancelled'], 'it is a flow child its parent waits for: cancel it instead (the parent hears)');
    case 'refused': {
      const hint = outcome.state === 'active' ? ACTIVE_HINT[change.kind] : outcome.state === 'waiting-children' && change.kind === 'remove' ? PARENT_HINT : undefined;
      throw new JobStateError(queue, id, outcome.state, action, ALLOWED[change.kind], hint);
    }
  }
}

/** changeDelay(ms): whole ms from now, 0 or more. */
export function delayArg(ms: unknown): number {
  return Math.ceil(nonNegativeNumber(ms, 'job.changeDelay delay'));
}

/** changePriority({ priority, lifo }): as the job options check them. */
export function priorityArg(opts: unknown): { priority: number; lifo: boolean } {
  assertPlainObject(opts, 'job.changePriority options');
  assertKnownKeys(opts, ['priority', 'lifo'], 'job.changePriority options');
  const { priority = 0, lifo = false } = opts;
  if (typeof priority !== 'number' || !Number.isInteger(priority) || priority < 0 || priority > MAX_PRIORITY) {
    throw new InvalidArgumentError('job.changePriority options.priority', `must be an integer from 0 (first) to ${MAX_PRIORITY}, got ${describe(priority)}`);
  }
  if (typeof lifo !== 'boolean') throw new InvalidArgumentError('job.changePriority options.lifo', `must be a boolean, got ${describe(lifo)}`);
  return { priority, lifo };
}

/** A producer's new payload: JSON, within the queue's maxPayloadBytes (a payload workers would refuse must not be stored). */
export function encodeData(data: unknown, maxPayloadBytes: number): string {
  const encoded = encodeJson(data, 'job.updateData data');
  const bytes = Buffer.byteLength(encoded);
  if (bytes > maxPayloadBytes) throw new PayloadTooLargeError('job.updateData data', bytes, maxPayloadBytes);
  return encoded;
}
