import { clockOf, type ClockTimer } from '../store/clock.js';
import type { ReapOutcome, Store } from '../store/store.js';

export interface ReaperOptions {
  readonly store: Store;
  readonly queue: string;
  readonly intervalMs: number;
  readonly maxStalledCount: number;
  readonly onReaped: (outcomes: readonly ReapOutcome[]) => void;
  readonly onError: (error: unknown) => void;
}

const LIMIT = 100;

/**
 * Takes back jobs whose lease expired, once at start and then every
 * interval (with a little jitter so many workers do not fire together).
 * Several reapers racing is safe: the reap script moves each job once.
 * Each round then runs the store's housekeeping for the queue (what
 * crashed processes left half done; see Store.housekeep) as a step of its own.
 */
export class Reaper {
  private timer: ClockTimer | undefined;
  private stopped = true;
  /** The round under way: stop() waits for it, so no call of the reaper outlives its worker. */
  private underway: Promise<void> | undefined;

  constructor(private readonly options: ReaperOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** No more rounds; resolves once the one under way has ended (between its calls it stops early). */
  async stop(): Promise<void> {
    this.stopped = true;
    clockOf(this.options.store).clearTimeout(this.timer);
    this.timer = undefined;
    await this.underway;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = clockOf(this.options.store).setTimeout(() => {
      this.underway = this.run().finally(() => {
        this.underway = undefined;
      });
    }, ms);
  }

  private async run(): Promise<void> {
    try {
      await this.reapExpired();
      if (!this.stopped) await this.housekeep();
    } catch (err) {
      this.options.onError(err);
    }
    const jitter = Math.floor(Math.random() * Math.min(1000, this.options.intervalMs / 10));
    this.schedule(this.options.intervalMs + jitter);
  }

  /** Takes back jobs whose lease expired, a batch per call. */
  private async reapExpired(): Promise<void> {
    let batch: ReapOutcome[];
    do {
      batch = await this.options.store.reap(this.options.queue, this.options.maxStalledCount, LIMIT);
      if (batch.length) this.options.onReaped(batch);
    } while (batch.length === LIMIT && !this.stopped);
  }

  /** The store's housekeeping, a batch per call. */
  private async housekeep(): Promise<void> {
    while ((await this.options.store.housekeep(this.options.queue, LIMIT)) === LIMIT && !this.stopped);
  }
}
