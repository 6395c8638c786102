import { clockOf, type Clock, type ClockTimer } from '../store/clock.js';
import type { ExtendOutcome, Lease, Store } from '../store/store.js';

export interface LeaseKeeperOptions {
  readonly store: Store;
  readonly queue: string;
  readonly lockMs: number;
  readonly renewMs: number;
  /** Leases held right now. */
  readonly held: () => Lease[];
  readonly onOutcome: (lease: Lease, outcome: ExtendOutcome) => void;
  /** Renewal failed (Redis unreachable); `sinceLastRenewal` is how long leases went unrenewed. */
  readonly onError: (error: unknown, sinceLastRenewal: number) => void;
}

/**
 * Renews every lease of one worker with one timer and one script call per
 * tick, whatever the number of jobs held.
 */
export class LeaseKeeper {
  private timer: ClockTimer | undefined;
  private readonly clock: Clock;
  private lastRenewal: number;
  /** The renewal under way: stop() waits for it. */
  private underway: Promise<void> | undefined;

  constructor(private readonly options: LeaseKeeperOptions) {
    this.clock = clockOf(options.store);
    this.lastRenewal = this.clock.now();
  }

  start(): void {
    this.lastRenewal = this.clock.now();
    if (this.timer === undefined) this.schedule();
  }

  /** No more renewals; resolves once the one under way has been answered. */
  async stop(): Promise<void> {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    await this.underway;
  }

  /** One timer re-armed after each tick (the clock may be a test's, which has no intervals). */
  private schedule(): void {
    this.timer = this.clock.setTimeout(() => {
      this.schedule();
      if (this.underway) return;
      this.underway = this.tick().finally(() => {
        this.underway = undefined;
      });
    }, this.options.renewMs);
  }

  private async tick(): Promise<void> {
    const leases = this.options.held();
    if (leases.length === 0) {
      this.lastRenewal = this.clock.now();
      return;
    }
    const started = this.clock.now();
    try {
      const outcomes = await this.options.store.extend(this.options.queue, this.options.lockMs, leases);
      this.lastRenewal = started;
      outcomes.forEach((outcome, i) => this.options.onOutcome(leases[i]!, outcome));
    } catch (err) {
      this.options.onError(err, this.clock.now() - this.lastRenewal);
    }
  }
}
