import { InvalidArgumentError } from '../engine/errors.js';
import type { Clock, ClockTimer } from '../store/clock.js';
import { describe } from '../common/validation.js';

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
}

/** 'real': time flows as the system's, and advance() jumps ahead of it; 'manual': time moves only by advance(). */
export type ClockMode = 'real' | 'manual';

/**
 * After a timer fires, the work it started (store calls, handlers) gets
 * event-loop turns until QUIET_TURNS pass without a store call, at most
 * MAX_TURNS: an idle promoter tick costs a few turns, a chain of claim, run
 * and complete keeps its turns.
 */
const QUIET_TURNS = 5;
const MAX_TURNS = 200;

/**
 * The clock of a MemoryStore: the time its transitions use, and the timers
 * of every Worker on it (promotion, lease renewal, reaping, job timeouts).
 * `advance(ms)` moves time forward and fires the timers due on the way, in
 * order, letting the work each one starts settle before the next: a delay,
 * a backoff, a lease or a timeout of minutes runs in milliseconds.
 *
 * @example
 * const store = new MemoryStore({ clock: 'manual' });
 * await queue.add('remind', data, { delay: 60_000 });
 * await store.clock.advance(60_000); // the worker promotes and runs it now
 */
export class MemoryClock implements Clock {
  private readonly mode: ClockMode;
  /** manual: the current time; real: the offset added to the system's. */
  private base: number;
  private seq = 0;
  private timers: Timer[] = [];
  private realTimer: NodeJS.Timeout | undefined;
  private advancing = false;
  /** Store calls so far: settling waits until they stop. */
  private activity = 0;

  constructor(mode: ClockMode = 'real', start: number = Date.now()) {
    if (mode !== 'real' && mode !== 'manual') throw new InvalidArgumentError('MemoryStore options.clock', `must be 'real' or 'manual', got ${describe(mode)}`);
    this.mode = mode;
    this.base = mode === 'manual' ? start : 0;
  }

  now(): number {
    return this.mode === 'manual' ? this.base : Date.now() + this.base;
  }

  setTimeout(fn: () => void, ms: number): ClockTimer {
    const timer: Timer = { at: this.now() + Math.max(0, Number.isFinite(ms) ? ms : 0), seq: this.seq++, fn };
    this.timers.push(timer);
    this.timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    this.arm();
    return timer;
  }

  clearTimeout(timer: ClockTimer): void {
    const i = this.timers.indexOf(timer as Timer);
    if (i >= 0) this.timers.splice(i, 1);
  }

  /** A store call ran (MemoryStore tells its clock): work is still going on. */
  touch(): void {
    this.activity += 1;
  }

  /** Timers waiting to fire (for tests of the clock itself and for leak checks). */
  get pending(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way at its own
   * time. Resolves once the last one's work settled.
   */
  async advance(ms: number): Promise<void> {
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
      throw new InvalidArgumentError('clock.advance(ms)', `must be a non-negative number of ms, got ${describe(ms)}`);
    }
    if (this.advancing) throw new InvalidArgumentError('clock.advance(ms)', 'was called while another advance() runs', 'await each advance() before the next');
    this.advancing = true;
    const target = this.now() + ms;
    try {
      await this.settle();
      for (let fired = 0; fired < 1_000_000; fired++) {
        const next = this.timers[0];
        if (!next || next.at > target) break;
        this.moveTo(next.at);
        this.timers.shift();
        next.fn();
        await this.settle();
      }
      this.moveTo(target);
    } finally {
      this.advancing = false;
      this.arm();
    }
  }

  private moveTo(at: number): void {
    const now = this.now();
    if (at <= now) return;
    this.base += at - now;
  }

  /** Real mode: one system timer for the earliest timer of this clock. */
  private arm(): void {
    if (this.mode !== 'real' || this.advancing) return;
    clearTimeout(this.realTimer);
    this.realTimer = undefined;
    const first = this.timers[0];
    if (!first) return;
    this.realTimer = setTimeout(() => this.fireDue(), Math.max(0, first.at - this.now()));
    this.realTimer.unref?.();
  }

  private fireDue(): void {
    this.realTimer = undefined;
    const now = this.now();
    while (this.timers[0] && this.timers[0].at <= now) this.timers.shift()!.fn();
    this.arm();
  }

  private async settle(): Promise<void> {
    for (let turn = 0, quiet = 0; turn < MAX_TURNS && quiet < QUIET_TURNS; turn++) {
      const before = this.activity;
      await new Promise<void>((resolve) => setImmediate(resolve));
      quiet = this.activity === before ? quiet + 1 : 0;
    }
  }
}
