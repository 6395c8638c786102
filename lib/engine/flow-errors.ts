import { InvalidArgumentError, SpoolError } from './errors.js';

/**
 * Errors of flows, dead-letter operations and waiting for jobs. They live
 * apart from errors.ts so the flow feature stays in its own files.
 */

/**
 * A flow names a job id twice, or an id that already names a job. Nothing of the flow was written.
 *
 * Do: give every node its own jobId (or none); if the id exists because the
 * same flow was added before, read that one (`queue.getJob(id)`) instead.
 */
export class DuplicateJobIdError extends InvalidArgumentError {
  constructor(field: string, readonly queue: string, readonly jobId: string, already: 'in-flow' | 'stored') {
    super(
      field,
      already === 'in-flow'
        ? `repeats job id "${jobId}" of queue "${queue}" within the flow`
        : `names job id "${jobId}", which already exists in queue "${queue}"`,
      'give every node its own jobId (or none); nothing of the flow was written',
    );
  }
}

/**
 * A flow node names a queue the FlowProducer was not given. Nothing was written.
 *
 * Do: list the queue in FlowProducer options.queues (in Nest:
 * `QueueModule.registerQueue()` on the same connection), or fix its name.
 */
export class UnknownQueueError extends InvalidArgumentError {
  constructor(field: string, readonly queue: string, known: readonly string[]) {
    super(
      field,
      `names queue "${queue}", which this FlowProducer does not know`,
      `register it (FlowProducer options.queues or registerQueue(); in Nest, QueueModule.registerQueue() on the same connection); known queues: ${known.join(', ') || 'none'}`,
    );
  }
}

/**
 * waitUntilFinished / waitFor gave up: the job did not finish within the timeout. The job is untouched.
 *
 * Do: wait again with a longer `timeout`, or read its state later
 * (`queue.getJob(id)`); do not add it again, it may still run.
 */
export class WaitTimeoutError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, readonly timeout: number) {
    super(`job ${jobId} of queue "${queue}" did not finish within ${timeout} ms`);
  }
}

/**
 * The job waited for was dead-lettered; `reason` and `code` are the stored ones.
 *
 * Do: read the dead letter's error (`spool show <queue> <id>`, the
 * dashboard), fix the cause, then redrive it (`queue.redrive(id)`).
 */
export class JobFailedError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, message: string, readonly reason: string, readonly code: string) {
    super(`job ${jobId} of queue "${queue}" failed (${reason || 'error'}): ${message}`);
  }
}

/**
 * No job with this id in this queue (never added, or removed by retention or remove()).
 *
 * Do: check the queue name and the id; to read finished jobs for longer,
 * raise `removeOnComplete` / `removeOnFail` when adding.
 */
export class JobNotFoundError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string) {
    super(`no job ${jobId} in queue "${queue}" (never added, or removed by retention or remove())`);
  }
}

/**
 * retry()/redrive() of a job that is not a dead letter. Nothing was changed.
 *
 * Do: nothing if it is waiting, delayed or active (it will run); `state` says
 * which. A completed or cancelled job is run again by adding it under a new jobId.
 */
export class JobNotFailedError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, readonly state: string) {
    super(`job ${jobId} of queue "${queue}" is ${state}, not failed: only dead letters can be retried`);
  }
}

/**
 * remove() of a job that is not finished. Nothing was changed.
 *
 * Do: cancel it first (`queue.cancel(id)`), or wait for it to finish, then remove it.
 */
export class JobNotFinishedError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, readonly state: string) {
    super(`job ${jobId} of queue "${queue}" is ${state}: cancel it first, only finished jobs can be removed`);
  }
}

/**
 * remove() of a flow parent whose children are still pending. Nothing was changed.
 *
 * Do: wait for the children (`job.getPendingChildren()` lists them) or cancel
 * them (`queue.cancel(childId)`), then remove the parent again.
 */
export class ChildrenPendingError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, readonly pending: number) {
    super(`job ${jobId} of queue "${queue}" still has ${pending} pending children: wait for them or cancel them first`);
  }
}
