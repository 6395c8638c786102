/**
 * Per-name concurrency inside one worker (nameConcurrency): counts running
 * jobs of each capped name and says which names the next claim steps over.
 */
export class NameCaps {
  private readonly running = new Map<string, number>();

  constructor(private readonly caps: ReadonlyMap<string, number>) {}

  /** Names at their cap right now. */
  excluded(): string[] {
    const names: string[] = [];
    for (const name of this.caps.keys()) if (this.atCap(name)) names.push(name);
    return names;
  }

  atCap(name: string): boolean {
    const cap = this.caps.get(name);
    return cap !== undefined && (this.running.get(name) ?? 0) >= cap;
  }

  started(name: string): void {
    if (this.caps.has(name)) this.running.set(name, (this.running.get(name) ?? 0) + 1);
  }

  /** A run ended; true when the name was at its cap until now (claims may take it again). */
  ended(name: string): boolean {
    const count = this.running.get(name);
    if (count === undefined) return false;
    const wasAtCap = this.atCap(name);
    this.running.set(name, count - 1);
    return wasAtCap;
  }
}
