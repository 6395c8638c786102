import type { JobState, Store } from '../store/store.js';
import { ChildrenPendingError, JobNotFailedError, JobNotFinishedError, JobNotFoundError } from './flow-errors.js';
import { cancelChildren } from './flow-ops.js';

/** What cancel() did: cancelled now, cancel requested from the running worker, job already finished, or no such job. */
export type CancelResult = 'cancelled' | 'cancelling' | 'finished' | 'not-found';

/** Queue.cancel(id): the store's outcome as the caller reads it; a flow parent's unfinished children are cancelled in their queues. */
export async function cancelOne(store: Store, queue: string, id: string): Promise<CancelResult> {
  const outcome = await store.cancel(queue, id);
  await cancelChildren(store, outcome.children);
  switch (outcome.status) {
    case 'cancelled':
      return 'cancelled';
    case 'requested':
      return 'cancelling';
    case 'finished':
      return 'finished';
    case 'unknown':
      return 'not-found';
  }
}

/** Queue.retry(id): the job's new state, or the typed error that says why it did not move. */
export async function redriveOne(store: Store, queue: string, id: string): Promise<JobState> {
  const outcome = await store.redrive(queue, id);
  if (outcome.status === 'unknown') throw new JobNotFoundError(queue, id);
  if (outcome.status === 'not-failed') throw new JobNotFailedError(queue, id, outcome.state);
  return outcome.state;
}

/** Queue.remove(id): true when deleted, false for an unknown id, a typed error for a job that may not go. */
export async function removeOne(store: Store, queue: string, id: string): Promise<boolean> {
  const outcome = await store.remove(queue, id);
  switch (outcome.status) {
    case 'removed':
      return true;
    case 'unknown':
      return false;
    case 'not-finished':
      throw new JobNotFinishedError(queue, id, outcome.state);
    case 'children-pending':
      throw new ChildrenPendingError(queue, id, outcome.pending);
  }
}
