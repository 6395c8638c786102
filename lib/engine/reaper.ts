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
 * Each round also sweeps the queue's flow outbox: parent notifications a
 * crashed worker wrote but never delivered (delivery is idempotent), and
 * settles flow adds a crashed producer left uncommitted (store.sweepFlows).
 */
export class Reaper {
  private timer: ClockTimer | undefined;
  private stopped = true;

  constructor(private readonly options: ReaperOptions) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  stop(): void {
    this.stopped = true;
    clockOf(this.options.store).clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = clockOf(this.options.store).setTimeout(() => void this.run(), ms);
  }

  private async run(): Promise<void> {
    try {
      let batch: ReapOutcome[];
      do {
        batch = await this.options.store.reap(this.options.queue, this.options.maxStalledCount, LIMIT);
        if (batch.length) this.options.onReaped(batch);
      } while (batch.length === LIMIT && !this.stopped);
      while ((await this.options.store.sweepOutbox(this.options.queue, LIMIT)) === LIMIT && !this.stopped);
      await this.options.store.sweepFlows(this.options.queue);
    } catch (err) {
      this.options.onError(err);
    }
    const jitter = Math.floor(Math.random() * Math.min(1000, this.options.intervalMs / 10));
    this.schedule(this.options.intervalMs + jitter);
  }
}
