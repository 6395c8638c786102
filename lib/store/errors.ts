import { StoreError } from './store.js';

export { StoreError } from './store.js';

/**
 * The store is used before connect() or after disconnect().
 *
 * Do: `await store.connect()` before using a store you built yourself, and
 * stop calling it once it is disconnected.
 */
export class StoreNotConnectedError extends StoreError {
  constructor(what: string) {
    super(`${what}: the store is not connected; call await store.connect() first`, true);
  }
}

/**
 * A script ran and Redis answered with an error. Out of memory is worth waiting out; the rest are not.
 *
 * Do: read Redis's answer in the message; unless it is out of memory,
 * repeating will not help: check that nothing else edits Spool's keys, and
 * report it with the message.
 */
export class ScriptError extends StoreError {
  constructor(readonly script: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`script ${script} failed: ${message}`, !/^OOM\b/.test(message), { cause });
  }
}

/**
 * A reply that does not have the shape its script documents: a bug, or a foreign script under the same name.
 *
 * Do: check that no other code loads scripts or writes keys under Spool's
 * prefix; otherwise report it as a bug, with the message.
 */
export class ReplyShapeError extends StoreError {
  constructor(script: string, detail: string) {
    super(`unexpected reply from script ${script}: ${detail}`, true);
  }
}

/**
 * A flow add took longer than the sweep grace between writing its parts and
 * committing them, and a sweep discarded it as abandoned: nothing of the tree
 * was kept or ran.
 *
 * Do: add the flow again (safe, nothing was kept); if it recurs, look for
 * what slows the add (a slow or distant Redis, a blocked event loop).
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
 *
 * Do: check that Redis runs and the connection (URL, Sentinel, TLS) is
 * right; retry the add later, with the same jobId to stay idempotent.
 */
export class RedisUnavailableError extends StoreError {
  /** `what`: the call or connection that failed. `message` replaces the sentence for a subclass that knows more (CommandTimeoutError). */
  constructor(readonly what: string, cause?: unknown, message?: string) {
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
 * treats it as one.
 *
 * Do: retry the call; an add with the same jobId is idempotent (without a
 * jobId it may add the job twice). Raise `commandTimeoutMs` if Redis is only slow.
 */
export class CommandTimeoutError extends RedisUnavailableError {
  constructor(override readonly what: string, readonly timeoutMs: number) {
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
 * write only); workers keep finishing jobs.
 *
 * Do: raise maxmemory or free memory (shorter retention, purge finished
 * jobs), then retry the call.
 */
export class RedisOutOfMemoryError extends StoreError {
  constructor(readonly script: string, cause: unknown) {
    super(`script ${script} refused: Redis is out of memory (maxmemory reached); nothing was written. Raise maxmemory or drain the queue`, false, { cause });
  }
}
