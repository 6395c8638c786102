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
  private timer: NodeJS.Timeout | undefined;
  private lastRenewal = Date.now();
  private running = false;

  constructor(private readonly options: LeaseKeeperOptions) {}

  start(): void {
    this.lastRenewal = Date.now();
    this.timer ??= setInterval(() => void this.tick(), this.options.renewMs);
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.running) return;
    const leases = this.options.held();
    if (leases.length === 0) {
      this.lastRenewal = Date.now();
      return;
    }
    this.running = true;
    const started = Date.now();
    try {
      const outcomes = await this.options.store.extend(this.options.queue, this.options.lockMs, leases);
      this.lastRenewal = started;
      outcomes.forEach((outcome, i) => this.options.onOutcome(leases[i]!, outcome));
    } catch (err) {
      this.options.onError(err, Date.now() - this.lastRenewal);
    } finally {
      this.running = false;
    }
  }
}
