import { PeerMissingError, SpoolError } from '../common/errors.js';

/**
 * A NATS feature was asked for, but its optional peer package is not installed.
 *
 * Do: `npm install <packageName>` (the message names it).
 */
export class NatsPeerMissingError extends PeerMissingError {
  constructor(readonly packageName: string, cause: unknown) {
    super([packageName], `notify over NATS needs the optional peer ${packageName}: npm install ${packageName}`, { cause });
  }
}

/**
 * The NATS servers could not be reached when the adapter first needed them.
 *
 * Do: start nats-server (with `-js` when `kvBucket` is set), or fix the `servers` option.
 */
export class NatsUnavailableError extends SpoolError {
  constructor(readonly servers: readonly string[], cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`NATS at ${servers.join(', ')} is unreachable (${reason}): start nats-server (with -js when kvBucket is set) or fix the servers option`, { cause });
  }
}
