import type { Lease } from '../store/store.js';
import { JobCancelledError, LeaseLostError } from './errors.js';
import type { HeldJob } from './held-job.js';
import { NameCaps, type NameRoom } from './name-caps.js';

/**
 * The jobs one worker holds: each one's slot, the name caps that decide
 * whether a claimed job runs now or waits parked, and the signal a closing
 * worker waits on (the last held job let go). Every job enters through
 * `hold` and leaves through `free`, whatever ended it.
 */
export class Slots<Data, Result> {
  private readonly held = new Map<string, HeldJob<Data, Result>>();
  /** Claimed jobs waiting for their name to drop under its cap (two claims raced). */
  private readonly parked: HeldJob<Data, Result>[] = [];
  private readonly caps: NameCaps;
  private emptied: (() => void) | undefined;

  constructor(nameConcurrency: ReadonlyMap<string, number>) {
    this.caps = new NameCaps(nameConcurrency);
  }

  get size(): number {
    return this.held.size;
  }

  values(): HeldJob<Data, Result>[] {
    return [...this.held.values()];
  }

  /** Leases still worth renewing (not known lost). */
  leases(): Lease[] {
    return this.values().filter((h) => !h.lost).map((h) => h.lease);
  }

  /** The held job under this exact lease (a reclaimed job has a new token). */
  find(id: string, token: string): HeldJob<Data, Result> | undefined {
    const held = this.held.get(id);
    return held && held.lease.token === token ? held : undefined;
  }

  /** Capped names and the room a claim has in each; `leaving`: the names of the jobs whose completions carry the claim. */
  room(leaving?: readonly string[]): readonly NameRoom[] {
    return this.caps.room(leaving);
  }

  /** Takes a claimed job; true when it may run now, false when it waits parked behind its name's cap. */
  hold(held: HeldJob<Data, Result>): boolean {
    this.held.set(held.job.id, held);
    this.caps.taken(held.job.name);
    if (!this.caps.atCap(held.job.name)) return true;
    this.parked.push(held);
    return false;
  }

  /** The job's handler starts. */
  started(held: HeldJob<Data, Result>): void {
    held.started = true;
    this.caps.started(held.job.name);
  }

  /**
   * A started job's run is over (called once per run). When its name was at
   * its cap: the parked job of that name that may start now (taken off the
   * parked list, only if `startNext`), or 'reopened' (claims may take the name again).
   */
  runEnded(held: HeldJob<Data, Result>, startNext: boolean): HeldJob<Data, Result> | 'reopened' | undefined {
    const name = held.job.name;
    if (!this.caps.ended(name)) return undefined;
    const next = startNext ? this.parked.findIndex((p) => p.job.name === name) : -1;
    return next >= 0 ? this.parked.splice(next, 1)[0]! : 'reopened';
  }

  /** Lets the job go (written, handed back or lost). A close waiting for the last one hears it here. */
  free(held: HeldJob<Data, Result>): void {
    held.clearTimer();
    const parkedAt = this.parked.indexOf(held);
    if (parkedAt >= 0) this.parked.splice(parkedAt, 1);
    if (this.held.get(held.job.id) !== held) return;
    this.held.delete(held.job.id);
    this.caps.dropped(held.job.name);
    if (this.held.size === 0) this.emptied?.();
  }

  /** Ownership of a held job went away: the lease is lost, or a cancel was asked for. */
  signal(id: string, token: string, kind: 'lost' | 'cancel'): void {
    const held = this.find(id, token);
    if (!held) return;
    if (kind === 'cancel') return held.abort(new JobCancelledError(id));
    held.lost = true;
    held.abort(new LeaseLostError(id));
  }

  /** Resolves once no job is held, or after `timeout` ms. */
  whenEmpty(timeout: number): Promise<void> {
    if (this.held.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.emptied = undefined;
        resolve();
      };
      const timer = setTimeout(done, timeout);
      this.emptied = done;
    });
  }
}
