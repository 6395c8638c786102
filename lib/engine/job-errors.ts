import type { JobState } from '../store/store.js';
import { SpoolError } from './errors.js';

/** "waiting, delayed or failed" */
function orList(states: readonly string[]): string {
  return states.length <= 1 ? (states[0] ?? '') : `${states.slice(0, -1).join(', ')} or ${states.at(-1)}`;
}

/**
 * A Job handle method (remove, promote, changeDelay, changePriority,
 * updateData, updateProgress) refused in the job's current state. Nothing
 * was changed. `allowed` lists the states it needs.
 *
 * Do: read `state`; call the method while the job is in one of `allowed`, or
 * use the call for its state (cancel an active job, redrive a failed one).
 */
export class JobStateError extends SpoolError {
  constructor(
    readonly queue: string,
    readonly jobId: string,
    readonly state: JobState,
    readonly action: string,
    readonly allowed: readonly JobState[],
    hint?: string,
  ) {
    super(`job ${jobId} of queue "${queue}" is ${state}: ${action}() needs a job that is ${orList(allowed)}${hint ? `; ${hint}` : ''}; nothing was changed`);
  }
}

/**
 * obliterate() of a queue with active jobs, without { force: true }. Nothing was deleted.
 *
 * Do: close the queue's workers first and obliterate again, or pass
 * `{ force: true }` and lose the active jobs with the queue.
 */
export class QueueActiveError extends SpoolError {
  constructor(readonly queue: string, readonly active: number) {
    super(
      `queue "${queue}" has ${active} active job${active === 1 ? '' : 's'}: obliterate() refused and nothing was deleted; ` +
        'close its workers first, or pass { force: true } (their jobs are lost with the queue)',
    );
  }
}
