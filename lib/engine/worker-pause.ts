import { assertKnownKeys, describe } from '../common/validation.js';
import type { Claimer } from './claimer.js';
import { InvalidArgumentError } from './errors.js';
import type { HeldJob } from './held-job.js';
import type { Slots } from './slots.js';
import type { Upkeep } from './upkeep.js';

/** worker.pause() options; `true` alone is `{ doNotWaitActive: true }` (BullMQ's pause(true)). */
export type PauseOptions = boolean | { readonly doNotWaitActive?: boolean };

/** What pausing touches in its worker (lib/engine/worker.ts). */
export interface PausingWorker<Data, Result> {
  readonly claimer: Claimer;
  readonly upkeep: Upkeep<Data, Result>;
  readonly slots: Slots<Data, Result>;
  /** The worker has started and is not closing: a resume claims again. */
  started(): boolean;
  /** Gives a held job back to waiting, attempt not counted. */
  handBack(held: HeldJob<Data, Result>): Promise<void>;
  /** The pause state changed: the heartbeat says so now (queue.getWorkers()), and the event goes out. */
  changed(paused: boolean): void;
  report(err: unknown, context: string): void;
}

function doNotWaitActive(options: PauseOptions | undefined): boolean {
  if (options === undefined || typeof options === 'boolean') return options ?? false;
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('worker.pause() options', `must be a boolean or { doNotWaitActive?: boolean }, got ${describe(options)}`);
  }
  assertKnownKeys(options, ['doNotWaitActive'], 'worker.pause() options');
  if (options.doNotWaitActive !== undefined && typeof options.doNotWaitActive !== 'boolean') {
    throw new InvalidArgumentError('worker.pause() options.doNotWaitActive', `must be a boolean, got ${describe(options.doNotWaitActive)}`);
  }
  return options.doNotWaitActive ?? false;
}

/**
 * One worker's pause (BullMQ's worker.pause/resume): it stops claiming and
 * taking pushes while the queue and its other workers go on. Jobs it holds
 * but never started (the prefetch reserve, capped names, a claim or push
 * that lands meanwhile) go back to waiting at once, not at their lease's
 * expiry; running jobs finish and are written as usual, their leases renewed.
 */
export class WorkerPause<Data, Result> {
  private paused = false;
  /** The stop steps of the last pause: a resume waits for them, so the hand-backs never race a new claim. */
  private stopping: Promise<void> = Promise.resolve();
  /** Settles when the pause ends: a pause() waiting for running jobs stops waiting. */
  private resumed: (() => void) | undefined;
  private resumedSignal: Promise<void> = Promise.resolve();

  constructor(private readonly w: PausingWorker<Data, Result>) {}

  get isPaused(): boolean {
    return this.paused;
  }

  /** Resolves once nothing new is claimed and, unless doNotWaitActive, the running jobs are done (or the worker resumed). */
  async pause(options?: PauseOptions): Promise<void> {
    const dontWait = doNotWaitActive(options);
    if (!this.paused) {
      this.paused = true;
      this.resumedSignal = new Promise((resolve) => (this.resumed = resolve));
      this.stopping = this.stop();
      this.w.changed(true);
    }
    await this.stopping;
    if (!dontWait && this.paused) await this.w.slots.whenEmpty(undefined, this.resumedSignal);
  }

  /** Claims again (and is named for pushes again by its next claim that runs dry). */
  async resume(): Promise<void> {
    if (!this.paused) return;
    this.paused = false;
    this.resumed?.();
    await this.stopping;
    this.w.changed(false);
    if (this.paused || !this.w.started()) return;
    try {
      await this.w.upkeep.listenPushes();
    } catch (err) {
      // Claims still run; they just do not offer pushes until the next resume.
      this.w.report(err, 'listening for pushes again after a pause failed');
    }
    if (!this.paused && this.w.started()) this.w.claimer.start();
  }

  /**
   * Claims stop first; the ones in flight are answered (their jobs come back
   * to a paused worker, which hands them back); then no add names this
   * worker for a push any more; then the jobs held but never started go back.
   */
  private async stop(): Promise<void> {
    const { claimer, upkeep, slots } = this.w;
    claimer.stop();
    try {
      await claimer.settled();
      await upkeep.stopPushes();
    } catch (err) {
      this.w.report(err, 'dropping the push name on pause failed');
    }
    await Promise.all(slots.unstarted().map((held) => this.w.handBack(held)));
  }
}
