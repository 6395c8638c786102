import type { Lease } from '../store/store.js';
import { JobCancelledError, LeaseLostError } from './errors.js';
import type { HeldJob } from './held-job.js';
import { NameCaps, type NameRoom } from './name-caps.js';

/**
 * The jobs one worker holds: each one's slot, the concurrency and name caps
 * that decide whether a claimed job runs now or waits parked (behind its
 * name's cap, or in the prefetch reserve until a run ends), and the signal a
 * closing worker waits on (the last held job let go). Every job enters
 * through `hold` and leaves through `free`, whatever ended it.
 */
export class Slots<Data, Result> {
  private readonly held = new Map<string, HeldJob<Data, Result>>();
  /** Claimed jobs waiting, in claim order, for a run to end: the prefetch reserve, or behind their name's cap (two claims raced). */
  private readonly parked: HeldJob<Data, Result>[] = [];
  /** Handlers running now. */
  private running = 0;
  private readonly caps: NameCaps;
  /** Waiting for the last held job to go: a close, a pause. */
  private readonly emptied = new Set<() => void>();

  constructor(
    nameConcurrency: ReadonlyMap<string, number>,
    private readonly concurrency: number,
  ) {
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

  /** Takes a claimed job; true when it may run now, false when it waits parked (reserve, or its name's cap). */
  hold(held: HeldJob<Data, Result>): boolean {
    this.held.set(held.job.id, held);
    this.caps.taken(held.job.name);
    if (this.running < this.concurrency && !this.caps.atCap(held.job.name)) return true;
    this.parked.push(held);
    return false;
  }

  /** Held jobs whose handler never started (the reserve and capped ones): a closing worker hands them back at once. */
  unstarted(): HeldJob<Data, Result>[] {
    return [...this.parked];
  }

  /** The job's handler starts. */
  started(held: HeldJob<Data, Result>): void {
    held.started = true;
    this.running += 1;
    this.caps.started(held.job.name);
  }

  /**
   * A started job's run is over (called once per run): the oldest parked
   * job that may start now, taken off the parked list (only if `startNext`),
   * and whether the ended job's name was at its cap until now (claims may
   * take that name again).
   */
  runEnded(held: HeldJob<Data, Result>, startNext: boolean): { readonly next: HeldJob<Data, Result> | undefined; readonly reopened: boolean } {
    this.running -= 1;
    const reopened = this.caps.ended(held.job.name);
    return { next: startNext ? this.takeRunnable() : undefined, reopened };
  }

  /** The oldest parked job that may start now (under the concurrency and its name's cap), taken off the parked list. */
  takeRunnable(): HeldJob<Data, Result> | undefined {
    if (this.running >= this.concurrency) return undefined;
    const at = this.parked.findIndex((p) => !this.caps.atCap(p.job.name));
    return at === -1 ? undefined : this.parked.splice(at, 1)[0];
  }

  /** Lets the job go (written, handed back or lost). A close waiting for the last one hears it here. */
  free(held: HeldJob<Data, Result>): void {
    held.clearTimer();
    const parkedAt = this.parked.indexOf(held);
    if (parkedAt >= 0) this.parked.splice(parkedAt, 1);
    if (this.held.get(held.job.id) !== held) return;
    this.held.delete(held.job.id);
    this.caps.dropped(held.job.name);
    if (this.held.size === 0) for (const done of [...this.emptied]) done();
  }

  /** Ownership of a held job went away: the lease is lost, or a cancel was asked for. */
  signal(id: string, token: string, kind: 'lost' | 'cancel'): void {
    const held = this.find(id, token);
    if (!held) return;
    if (kind === 'cancel') return held.abort(new JobCancelledError(id));
    held.lost = true;
    held.abort(new LeaseLostError(id));
  }

  /** Resolves once no job is held, or after `timeout` ms (none: no bound), or when `until` settles. */
  whenEmpty(timeout?: number, until?: Promise<unknown>): Promise<void> {
    if (this.held.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.emptied.delete(done);
        resolve();
      };
      const timer = timeout === undefined ? undefined : setTimeout(done, timeout);
      this.emptied.add(done);
      void until?.then(done, done);
    });
  }
}
