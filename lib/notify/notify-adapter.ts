/**
 * Wake-ups between processes (seed 000's contract). Producers announce work
 * inside the store's scripts (a woken claim spends the wake-hint budget in the
 * same call); this side listens and tells the engine when a dropped subscription came back (messages sent
 * meanwhile are lost, so listeners should look for work themselves).
 */
export type SchedMessage =
  | { readonly kind: 'waiting'; readonly queue: string }
  | { readonly kind: 'delayed'; readonly queue: string; readonly dueIn: number };

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

export type Unsubscribe = () => Promise<void>;

export interface NotifyAdapter {
  /** New waiting work or a new earliest delayed job, for every queue of this prefix. */
  onScheduled(listener: (message: SchedMessage) => void): Promise<Unsubscribe>;
  /** A lease holder lost its job (reaped, or cancel requested). */
  onOwnershipLost(listener: (message: OwnershipMessage) => void): Promise<Unsubscribe>;
  /** A watched job finished: the "job finished" channel. */
  onFinished(listener: (message: FinishedMessage) => void): Promise<Unsubscribe>;
  /** Subscriptions came back after a drop; returns a function that removes the listener. */
  onReconnect(listener: () => void): () => void;
  close(): Promise<void>;
}
