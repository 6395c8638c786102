import { StoreError } from './store.js';

export { StoreError } from './store.js';

/** The store is used before connect() or after disconnect(). */
export class StoreNotConnectedError extends StoreError {
  constructor(what: string) {
    super(`${what}: the store is not connected; call await store.connect() first`, true);
  }
}

/** A script ran and Redis answered with an error. Out of memory is worth waiting out; the rest are not. */
export class ScriptError extends StoreError {
  constructor(readonly script: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`script ${script} failed: ${message}`, !/^OOM\b/.test(message), { cause });
  }
}

/** A reply that does not have the shape its script documents: a bug, or a foreign script under the same name. */
export class ReplyShapeError extends StoreError {
  constructor(script: string, detail: string) {
    super(`unexpected reply from script ${script}: ${detail}`, true);
  }
}

/**
 * A flow add took longer than the sweep grace between writing its parts and
 * committing them, and a sweep discarded it as abandoned: nothing of the tree
 * was kept or ran. Adding it again is safe.
 */
export class FlowAddAbandonedError extends StoreError {
  constructor(graceMs: number) {
    super(`the flow add took over ${graceMs} ms between its two steps and was discarded as abandoned; nothing was kept, add it again`, false);
  }
}

/**
 * Redis cannot be reached (down, refusing connections, or the connection is
 * being re-established). Not permanent: a worker waits it out; a producer's
 * add() gets this at once instead of queueing commands offline for ever.
 */
export class RedisUnavailableError extends StoreError {
  /** `message` replaces the sentence for a subclass that knows more (CommandTimeoutError). */
  constructor(what: string, cause?: unknown, message?: string) {
    // Duck-typed: socket errors may come from another realm (vm contexts), where instanceof Error fails.
    const causeMessage = (cause as { message?: unknown } | undefined)?.message;
    const detail = typeof causeMessage === 'string' && causeMessage ? `: ${causeMessage}` : '';
    super(message ?? `${what}: Redis is unreachable${detail}; check that it runs and the URL is right (a worker waits, a producer should retry later)`, false, { cause });
  }
}

/**
 * Redis gave no reply within `commandTimeoutMs` (a server that hangs, a link
 * that drops packets without a reset): the call was sent, so it may or may
 * not have taken effect. A RedisUnavailableError, so every handler of an
 * unreachable Redis (workers' retries, the HTTP filter's 503, the outage log)
 * treats it as one; retrying is safe where the call is idempotent, as an add
 * with the same jobId is.
 */
export class CommandTimeoutError extends RedisUnavailableError {
  constructor(readonly what: string, readonly timeoutMs: number) {
    super(
      what,
      undefined,
      `${what}: Redis gave no reply within ${timeoutMs} ms (commandTimeoutMs); the command may or may not have taken effect. ` +
        'Retry it: an add with the same jobId is idempotent (without a jobId a retry may add the job twice); a worker retries its own writes',
    );
  }

  /** The same timeout, named by the call that met it (the connection only knows the command). */
  about(what: string): CommandTimeoutError {
    return new CommandTimeoutError(what, this.timeoutMs);
  }
}

/**
 * Redis reached maxmemory with the noeviction policy and refused a write.
 * The script refused wrote nothing (Redis refuses a script at its first
 * write only). Free memory or raise maxmemory; workers keep finishing jobs.
 */
export class RedisOutOfMemoryError extends StoreError {
  constructor(readonly script: string, cause: unknown) {
    super(`script ${script} refused: Redis is out of memory (maxmemory reached); nothing was written. Raise maxmemory or drain the queue`, false, { cause });
  }
}
