import { clockOf, type ClockTimer } from '../store/clock.js';
import type { Store } from '../store/store.js';
import { refillSchedulers } from './schedulers.js';

export interface PromoterOptions {
  readonly store: Store;
  readonly queue: string;
  readonly onError: (error: unknown) => void;
}

const LIMIT = 1000;
/** Longest sleep: a lost 'delayed' message costs at most this much lateness. */
const MAX_SLEEP = 30_000;

/**
 * Moves delayed jobs to waiting on time with one timer set to the next due
 * time, learned from each promote call and from 'delayed' messages; it never
 * polls in a tight loop.
 */
export class Promoter {
  private timer: ClockTimer | undefined;
  private dueAt = Infinity;
  private stopped = true;
  /** The run under way (a promote and its refills): stop() waits for it, so nothing of the promoter outlives its worker. */
  private underway: Promise<void> | undefined;
  private rerun = false;

  constructor(private readonly options: PromoterOptions) {}

  start(): void {
    this.stopped = false;
    this.arm(0);
  }

  /** No more runs; resolves once the one under way has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clockOf(this.options.store).clearTimeout(this.timer);
    this.timer = undefined;
    this.dueAt = Infinity;
    await this.underway;
  }

  /** A delayed job is due in `ms`: fire then, unless the timer is already set sooner. */
  arm(ms: number): void {
    if (this.stopped) return;
    const sleep = Math.min(Math.max(0, ms), MAX_SLEEP);
    const clock = clockOf(this.options.store);
    const at = clock.now() + sleep;
    if (this.timer && this.dueAt <= at) return;
    clock.clearTimeout(this.timer);
    this.dueAt = at;
    this.timer = clock.setTimeout(() => this.fire(), sleep);
  }

  private fire(): void {
    this.timer = undefined;
    this.dueAt = Infinity;
    if (this.underway) {
      this.rerun = true;
      return;
    }
    this.underway = this.run().finally(() => {
      this.underway = undefined;
    });
  }

  private async run(): Promise<void> {
    let next = MAX_SLEEP;
    try {
      const { moved, nextDueIn, refill } = await this.options.store.promote(this.options.queue, LIMIT);
      if (moved === LIMIT) next = 0;
      else if (nextDueIn !== null) next = nextDueIn;
      if (refill) await refillSchedulers(this.options.store, this.options.queue, refill, () => this.stopped);
    } catch (err) {
      this.options.onError(err);
      next = 1000;
    }
    if (this.rerun) {
      this.rerun = false;
      next = 0;
    }
    this.arm(next);
  }
}
