/**
 * Time as the engine's timers see it. RedisStore has none (the engine uses
 * the system clock and Redis's TIME inside scripts); an in-memory store gives
 * its own, so a test can move time forward and see delays, backoff, leases and
 * timeouts happen without waiting for them.
 */
export type ClockTimer = unknown;

/** The time a store's transitions read, and timers on it: the wall clock for Redis, a clock the test moves for `MemoryStore`. */
export interface Clock {
  /** Milliseconds since the epoch, as the store's transitions see them. */
  now(): number;
  /** Calls `fn` once `ms` ms of this clock have passed. */
  setTimeout(fn: () => void, ms: number): ClockTimer;
  clearTimeout(timer: ClockTimer): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout | undefined),
};

/** The store's clock, or the system clock when the store keeps time elsewhere (Redis). */
export function clockOf(store: { readonly clock?: Clock } | undefined): Clock {
  return store?.clock ?? systemClock;
}

/**
 * Whether the engine's system timers (poll, retry) may hold the process open
 * for this store. A store with its own clock lives in the process (tests):
 * nothing outside it waits for those timers, and a test that fails before
 * close() must still let its runner exit, so they are unref'd there.
 */
export function timersHoldProcess(store: { readonly clock?: Clock } | undefined): boolean {
  return store?.clock === undefined;
}

/** Unrefs a system timer when the store's timers must not hold the process (see timersHoldProcess); returns it. */
export function releaseForStore<T extends NodeJS.Timeout>(timer: T, store: { readonly clock?: Clock } | undefined): T {
  if (!timersHoldProcess(store)) timer.unref();
  return timer;
}
