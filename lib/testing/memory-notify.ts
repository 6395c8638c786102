import type { FinishedMessage, NotifyAdapter, OwnershipMessage, SchedMessage, Unsubscribe } from '../notify/notify-adapter.js';

type Listener<T> = (message: T) => void;

/**
 * Wake-ups in one process: the transitions' messages reach every listener of
 * the store, one event-loop turn later (as pub/sub would: never inside the
 * transition that sent them). Nothing is lost, so there is no reconnect, and
 * no wake-hint budget to spend: every idle worker hears every announcement.
 */
export class MemoryNotify implements NotifyAdapter {
  private readonly sched = new Set<Listener<SchedMessage>>();
  private readonly owls = new Set<Listener<OwnershipMessage>>();
  private readonly done = new Set<Listener<FinishedMessage>>();
  private closed = false;

  onScheduled(listener: Listener<SchedMessage>): Promise<Unsubscribe> {
    return subscribe(this.sched, listener);
  }

  onOwnershipLost(listener: Listener<OwnershipMessage>): Promise<Unsubscribe> {
    return subscribe(this.owls, listener);
  }

  onFinished(listener: Listener<FinishedMessage>): Promise<Unsubscribe> {
    return subscribe(this.done, listener);
  }

  onReconnect(): () => void {
    return () => undefined;
  }

  consumeWakeHint(_queue: string, max: number): Promise<number> {
    return Promise.resolve(max);
  }

  close(): Promise<void> {
    this.closed = true;
    this.sched.clear();
    this.owls.clear();
    this.done.clear();
    return Promise.resolve();
  }

  /** Delivers what one transition published, after it returned. */
  publish(messages: { readonly sched: readonly SchedMessage[]; readonly owls: readonly OwnershipMessage[]; readonly done: readonly FinishedMessage[] }): void {
    if (this.closed || messages.sched.length + messages.owls.length + messages.done.length === 0) return;
    setImmediate(() => {
      for (const m of dedupe(messages.sched)) emit(this.sched, m);
      for (const m of messages.owls) emit(this.owls, m);
      for (const m of messages.done) emit(this.done, m);
    });
  }
}

function subscribe<T>(set: Set<Listener<T>>, listener: Listener<T>): Promise<Unsubscribe> {
  set.add(listener);
  return Promise.resolve(async () => {
    set.delete(listener);
  });
}

function emit<T>(set: Set<Listener<T>>, message: T): void {
  for (const listener of [...set]) {
    try {
      listener(message);
    } catch {
      // A listener's bug must not stop the others hearing the message (pub/sub would not either).
    }
  }
}

/** One 'waiting' per queue per transition is enough. */
function dedupe(messages: readonly SchedMessage[]): SchedMessage[] {
  const seen = new Set<string>();
  return messages.filter((m) => {
    if (m.kind !== 'waiting') return true;
    if (seen.has(m.queue)) return false;
    seen.add(m.queue);
    return true;
  });
}
