/**
 * Per-name concurrency inside one worker (nameConcurrency). Counts, per
 * capped name, the jobs running and the jobs held (running, or parked
 * waiting for a run to end), and tells each claim how many more jobs of
 * each capped name it may take, so a batch claim does not take ten jobs of
 * a name capped at two and sit on eight leases other workers could use.
 * Two claims in flight at once may still together take more than the room:
 * those extra jobs wait parked until a run of their name ends.
 */
export type NameRoom = readonly [name: string, room: number];

const NO_ROOM: readonly NameRoom[] = [];

export class NameCaps {
  private readonly running = new Map<string, number>();
  private readonly held = new Map<string, number>();

  constructor(private readonly caps: ReadonlyMap<string, number>) {}

  /**
   * Each capped name with how many more of its jobs a claim may take now
   * (0: none). `leaving`: the names of the jobs whose completions carry this
   * claim; their slots count as free.
   */
  room(leaving: readonly string[] = []): readonly NameRoom[] {
    // Runs for every claim and completion: a worker without caps allocates nothing.
    if (this.caps.size === 0) return NO_ROOM;
    const out: NameRoom[] = [];
    for (const [name, cap] of this.caps) {
      let held = this.held.get(name) ?? 0;
      for (const l of leaving) if (l === name) held -= 1;
      out.push([name, Math.max(0, cap - held)]);
    }
    return out;
  }

  /** No more runs of this name may start now: a claimed job of it waits parked. */
  atCap(name: string): boolean {
    const cap = this.caps.get(name);
    return cap !== undefined && (this.running.get(name) ?? 0) >= cap;
  }

  /** The worker took a job of this name (it runs now or waits parked). */
  taken(name: string): void {
    bump(this.caps, this.held, name, 1);
  }

  /** The worker let go of a job of this name (finished, handed back or lost). */
  dropped(name: string): void {
    bump(this.caps, this.held, name, -1);
  }

  started(name: string): void {
    bump(this.caps, this.running, name, 1);
  }

  /** A run ended; true when the name was at its cap until now (claims may take it again). */
  ended(name: string): boolean {
    if (!this.running.has(name)) return false;
    const wasAtCap = this.atCap(name);
    bump(this.caps, this.running, name, -1);
    return wasAtCap;
  }
}

function bump(caps: ReadonlyMap<string, number>, counts: Map<string, number>, name: string, by: number): void {
  if (caps.has(name)) counts.set(name, (counts.get(name) ?? 0) + by);
}
