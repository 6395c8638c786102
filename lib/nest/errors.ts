import { SpoolError } from '../engine/errors.js';

/**
 * The Nest module refused the app's setup at bootstrap (bad module options,
 * a processor for a queue never registered, two handlers for one job name...).
 *
 * Do: fix what `field` names, as the message says, and start the app again.
 */
export class SpoolBootstrapError extends SpoolError {
  constructor(readonly field: string, problem: string, readonly fix?: string) {
    super(`${field} ${problem}${fix ? `: ${fix}` : ''}`);
  }
}

/**
 * queue.add() (or a flow node) carried a payload its job name's DTO rejects.
 * Nothing was written. `constraints` lists every failed constraint as
 * "path: message".
 *
 * Do: fix the payload (over HTTP, the filter answers 400 with the
 * constraints for the client to fix).
 */
export class QueueValidationError extends SpoolError {
  constructor(readonly queue: string, readonly jobName: string, readonly constraints: readonly string[]) {
    super(`payload of job "${jobName}" for queue "${queue}" is invalid: ${constraints.join('; ')}`);
  }
}
