import { SpoolError } from '../common/errors.js';
import type { EventReader, StoredEvent, StreamInfo } from '../store/store.js';

/**
 * A Store call MemoryStore does not carry yet: the operations API (dead-letter
 * pages, bulk redrive/promote, purge), the event stream and metrics. Tests of
 * those run against RedisStore; the README lists the difference.
 */
export class MemoryStoreUnsupportedError extends SpoolError {
  constructor(readonly operation: string) {
    super(`MemoryStore does not support ${operation} yet; run this test against a RedisStore (see README "Testing your processors")`);
  }
}

/** A rejected promise for an unsupported call (or a throw, for the synchronous openEvents). */
export function unsupported<T>(operation: string): Promise<T> {
  return Promise.reject(new MemoryStoreUnsupportedError(operation));
}

/**
 * The event stream as MemoryStore has it today: empty. A QueueEvents on it
 * (the Nest module opens one per registered queue) waits and sees nothing;
 * close() ends a pending read at once, so no timer outlives the test.
 */
export class EmptyEventReader implements EventReader {
  private pending: { timer: NodeJS.Timeout; done: () => void } | undefined;
  private closed = false;

  read(_after: string, _count: number, blockMs: number): Promise<StoredEvent[]> {
    if (this.closed) return Promise.resolve([]);
    return new Promise((resolve) => {
      const done = (): void => {
        this.pending = undefined;
        resolve([]);
      };
      this.pending = { timer: setTimeout(done, blockMs), done };
    });
  }

  async info(): Promise<StreamInfo | null> {
    return null;
  }

  async close(): Promise<void> {
    this.closed = true;
    const pending = this.pending;
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.done();
  }
}
