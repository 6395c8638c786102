/**
 * Wake-ups between processes (seed 000's contract). Producers announce work
 * inside the store's scripts (Redis; a woken claim spends the wake-hint
 * budget in the same call) or through announce() (NATS); this side listens
 * and tells the engine when a dropped subscription came back (messages sent
 * meanwhile are lost, so listeners should look for work themselves).
 */
export type SchedMessage =
  | { readonly kind: 'waiting'; readonly queue: string }
  | { readonly kind: 'delayed'; readonly queue: string; readonly dueIn: number };

/** A lease holder lost its job: the lease was reaped, or a cancel was requested. */
export interface OwnershipMessage {
  /** `lost`: the lease was reaped; `cancel`: a cancel was requested. */
  readonly kind: 'lost' | 'cancel';
  readonly queue: string;
  readonly id: string;
  readonly token: string;
}

/** A watched job (waitUntilFinished / waitFor) reached a terminal state. */
export interface FinishedMessage {
  readonly queue: string;
  readonly id: string;
  readonly state: string;
}

/** Stops a subscription of a `NotifyAdapter`. */
export type Unsubscribe = () => Promise<void>;

/**
 * What one transition asks to be told, as the store reports it to an
 * adapter that carries messages itself (see NotifyAdapter.announce).
 * `hints`: how many more idle workers the new waiting work is worth.
 */
export type Announcement =
  | { readonly channel: 'sched'; readonly message: SchedMessage; readonly hints: number }
  | { readonly channel: 'owls'; readonly message: OwnershipMessage }
  | { readonly channel: 'done'; readonly message: FinishedMessage };

/** How a store's processes tell each other about new work, lost leases and finished jobs (Redis pub/sub, NATS, or in memory). The engine listens through it; a store announces through it. */
export interface NotifyAdapter {
  /** New waiting work or a new earliest delayed job, for every queue of this prefix. */
  onScheduled(listener: (message: SchedMessage) => void): Promise<Unsubscribe>;
  /** A lease holder lost its job (reaped, or cancel requested). */
  onOwnershipLost(listener: (message: OwnershipMessage) => void): Promise<Unsubscribe>;
  /** A watched job finished: the "job finished" channel. */
  onFinished(listener: (message: FinishedMessage) => void): Promise<Unsubscribe>;
  /** Subscriptions came back after a drop; returns a function that removes the listener. */
  onReconnect(listener: () => void): () => void;
  /**
   * Present on adapters that can tell: the subscriber connection dropped,
   * so messages from now until onReconnect's are lost (once per drop).
   * A worker named for pushes then drops its name. Returns a function that
   * removes the listener.
   */
  onDrop?(listener: () => void): () => void;
  /**
   * Present on adapters that carry messages themselves (NATS): the store's
   * scripts then report what to announce in their replies, and the store
   * passes it here once the transition is done. Absent (Redis pub/sub): the
   * scripts PUBLISH inside the transition, which saves a round trip.
   */
  announce?(announcements: readonly Announcement[]): void;
  /**
   * Present on adapters that keep the wake-hint budget themselves (NATS):
   * how many of `want` slots a worker woken for `queue` may claim (0: the
   * budget is spent, go back to sleep). Absent: the store's claim spends
   * the budget kept next to the queue, in the same call.
   */
  takeWakeHints?(queue: string, want: number): Promise<number>;
  close(): Promise<void>;
}
