import { hostname } from 'node:os';
import { clockOf, type ClockTimer } from '../store/clock.js';
import type { Store } from '../store/store.js';
import type { WorkerBeat } from '../store/worker-registry.js';

/** How often a running worker says it is alive (queue.getWorkers()). */
export const WORKER_BEAT_MS = 5_000;
/** A worker whose last heartbeat is older than this is taken for gone (three missed beats). */
export const WORKER_STALE_MS = 3 * WORKER_BEAT_MS;

export interface HeartbeatOptions {
  readonly store: Store;
  readonly queue: string;
  readonly workerId: string;
  readonly concurrency: number;
  /** Jobs the worker holds right now. */
  readonly running: () => number;
  /** The worker is paused (worker.pause()). */
  readonly paused: () => boolean;
  /** A pause (true) or resume (false) asked through the queue, taken at this beat. */
  readonly onRequest?: (pause: boolean) => void;
  readonly report: (err: unknown, context: string) => void;
}

/**
 * A running worker's entry in its queue's workers list (lib/store/worker-registry):
 * one heartbeat at start and every WORKER_BEAT_MS on the store's clock (a
 * MemoryStore's manual clock moves it too), dropped when the worker closes.
 * A failed heartbeat is reported and the next one tries again: the list is
 * for operators, never a reason for a worker to stop.
 */
export class WorkerHeartbeat {
  private timer: ClockTimer | undefined;
  private startedAt = 0;
  /** The store-clock minute of this worker's last gauge sample (Store.sampleGauges): one call a minute at most. */
  private sampledMinute = -1;
  private started = false;
  private stopped = false;
  /** The beats under way (a refresh may overlap a timed one): stop() waits for them, so the entry's removal comes after them. */
  private readonly underway = new Set<Promise<void>>();

  constructor(private readonly o: HeartbeatOptions) {}

  start(): void {
    this.startedAt = clockOf(this.o.store).now();
    this.started = true;
    this.fire();
  }

  /** Beats now (the next one follows WORKER_BEAT_MS after it); nothing before start or after stop. */
  refresh(): void {
    if (this.started && !this.stopped) this.fire();
  }

  /** No more heartbeats; the entry goes. */
  async stop(): Promise<void> {
    this.stopped = true;
    clockOf(this.o.store).clearTimeout(this.timer);
    await Promise.all([...this.underway]);
    // A worker closing while Redis is away leaves an entry that reads leave out once stale (WORKER_STALE_MS).
    await this.o.store.forgetWorker(this.o.queue, this.o.workerId).catch(() => undefined);
  }

  private fire(): void {
    const beat = this.beat().finally(() => this.underway.delete(beat));
    this.underway.add(beat);
  }

  /**
   * The metrics history (oldest waiting age, delayed lag per minute) rides on the heartbeat too: the first beat of
   * each minute asks for the minute's sample; the store takes it once whatever the number of workers.
   */
  private async sampleGauges(): Promise<void> {
    const minute = Math.floor(clockOf(this.o.store).now() / 60_000);
    if (minute === this.sampledMinute) return;
    this.sampledMinute = minute;
    await this.o.store.sampleGauges(this.o.queue);
  }

  private async beat(): Promise<void> {
    if (this.stopped) return;
    const info: WorkerBeat = {
      id: this.o.workerId,
      hostname: hostname(),
      pid: process.pid,
      concurrency: this.o.concurrency,
      running: this.o.running(),
      startedAt: this.startedAt,
      paused: this.o.paused(),
    };
    try {
      await this.o.store.beat(this.o.queue, info, WORKER_STALE_MS);
      // The request rides on the heartbeat: no timer or subscription of its own, answered within WORKER_BEAT_MS.
      const want = (await this.o.store.takeWorkerRequest?.(this.o.queue, this.o.workerId)) ?? null;
      if (want !== null && !this.stopped) this.o.onRequest?.(want);
      await this.sampleGauges();
    } catch (err) {
      this.o.report(err, 'the worker heartbeat failed');
    }
    if (this.stopped) return;
    // A refresh() beats between two timed beats: one timer chain either way.
    clockOf(this.o.store).clearTimeout(this.timer);
    const timer = clockOf(this.o.store).setTimeout(() => this.fire(), WORKER_BEAT_MS);
    (timer as { unref?: () => void } | undefined)?.unref?.();
    this.timer = timer;
  }
}
