/** The limits a queue and its groups keep in Redis, as the Store reads and writes them (lib/store/store.ts re-exports them). */

/** At most `max` job starts per `duration` ms. */
export interface RateLimit {
  readonly max: number;
  readonly duration: number;
}

/** Limits kept in Redis for every producer and worker of a queue; null removes one, undefined leaves it. */
export interface QueueLimits {
  readonly rateLimit?: RateLimit | null;
  /** Global concurrency: at most this many jobs of the queue active at once, across every worker and process. */
  readonly concurrency?: number | null;
  readonly groupConcurrency?: number | null;
  readonly groupRateLimit?: RateLimit | null;
  readonly maxWaiting?: number | null;
  readonly maxWaitingPerGroup?: number | null;
  /** The queue's event stream: false off, { maxLen } its approximate length (default 10,000); null or true back to the default. */
  readonly events?: boolean | { readonly maxLen: number } | null;
}

/** A group's own limits over the queue defaults; null falls back to the default. */
export interface GroupLimits {
  readonly concurrency?: number | null;
  readonly rateLimit?: RateLimit | null;
}

export interface GroupState {
  readonly id: string;
  readonly waiting: number;
  readonly active: number;
  readonly paused: boolean;
  readonly concurrency?: number;
  readonly rateLimit?: RateLimit;
}
