import { InvalidArgumentError, SpoolError } from './errors.js';

/**
 * Errors of flows, dead-letter operations and waiting for jobs. They live
 * apart from errors.ts so the flow feature stays in its own files.
 */

/** A flow names a job id twice, or an id that already names a job. Nothing of the flow was written. */
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

/** A flow node names a queue the FlowProducer was not given. Nothing was written. */
export class UnknownQueueError extends InvalidArgumentError {
  constructor(field: string, readonly queue: string, known: readonly string[]) {
    super(
      field,
      `names queue "${queue}", which this FlowProducer does not know`,
      `register it (FlowProducer options.queues or registerQueue(); in Nest, QueueModule.registerQueue() on the same connection); known queues: ${known.join(', ') || 'none'}`,
    );
  }
}

/** waitUntilFinished / waitFor gave up: the job did not finish within the timeout. The job is untouched. */
export class WaitTimeoutError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, readonly timeout: number) {
    super(`job ${jobId} of queue "${queue}" did not finish within ${timeout} ms`);
  }
}

/** The job waited for was dead-lettered; `reason` and `code` are the stored ones. */
export class JobFailedError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, message: string, readonly reason: string, readonly code: string) {
    super(`job ${jobId} of queue "${queue}" failed (${reason || 'error'}): ${message}`);
  }
}

/** No job with this id in this queue (never added, or removed by retention). */
export class JobNotFoundError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string) {
    super(`no job ${jobId} in queue "${queue}" (never added, or removed by retention or remove())`);
  }
}

/** retry()/redrive() of a job that is not a dead letter. Nothing was changed. */
export class JobNotFailedError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, readonly state: string) {
    super(`job ${jobId} of queue "${queue}" is ${state}, not failed: only dead letters can be retried`);
  }
}

/** remove() of a job that is not finished. Nothing was changed. */
export class JobNotFinishedError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, readonly state: string) {
    super(`job ${jobId} of queue "${queue}" is ${state}: cancel it first, only finished jobs can be removed`);
  }
}

/** remove() of a flow parent whose children are still pending. Nothing was changed. */
export class ChildrenPendingError extends SpoolError {
  constructor(readonly queue: string, readonly jobId: string, readonly pending: number) {
    super(`job ${jobId} of queue "${queue}" still has ${pending} pending children: wait for them or cancel them first`);
  }
}
