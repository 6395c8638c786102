/**
 * A Redis sorted set's order in memory: members by score, ties by member
 * (byte order), so MemoryStore hands jobs out in the order RedisStore does.
 * Sorting is lazy: runs of reads between adds sort once, and removals leave
 * tombstones in the sorted order (skipped, compacted when they pile up), so
 * popping the head of a long queue stays O(1).
 */
export class SortedSet {
  private readonly scores = new Map<string, number>();
  private order: string[] | null = [];
  /** Entries of `order` before it that are all removed. */
  private head = 0;
  private removed = 0;

  get size(): number {
    return this.scores.size;
  }

  has(member: string): boolean {
    return this.scores.has(member);
  }

  score(member: string): number | undefined {
    return this.scores.get(member);
  }

  add(member: string, score: number): void {
    if (this.scores.get(member) === score) return;
    this.scores.set(member, score);
    this.order = null;
    this.head = 0;
    this.removed = 0;
  }

  /** Updates the score of a member that is there (ZADD XX); true when it was. */
  update(member: string, score: number): boolean {
    if (!this.scores.has(member)) return false;
    this.add(member, score);
    return true;
  }

  delete(member: string): boolean {
    if (!this.scores.delete(member)) return false;
    if (this.order) this.removed += 1;
    return true;
  }

  /** Members in order (a copy). */
  members(): string[] {
    return [...this.sorted()];
  }

  first(): [member: string, score: number] | undefined {
    const order = this.order ?? this.sorted();
    while (this.head < order.length && !this.scores.has(order[this.head]!)) this.head += 1;
    const member = order[this.head];
    return member === undefined ? undefined : [member, this.scores.get(member)!];
  }

  popMin(): [member: string, score: number] | undefined {
    const top = this.first();
    if (top) this.delete(top[0]);
    return top;
  }

  /** Members with a score <= max, in order, at most `limit`. */
  upTo(max: number, limit = Infinity): string[] {
    const out: string[] = [];
    for (const member of this.sorted()) {
      if (out.length >= limit || this.scores.get(member)! > max) break;
      out.push(member);
    }
    return out;
  }

  /** ZRANGE start end by rank (negative counts from the end, end inclusive). */
  range(start: number, end: number): string[] {
    const all = this.sorted();
    const from = start < 0 ? Math.max(0, all.length + start) : start;
    const to = end < 0 ? all.length + end : Math.min(end, all.length - 1);
    return from > to ? [] : all.slice(from, to + 1);
  }

  /** The live members in order (tombstones compacted away). */
  private sorted(): string[] {
    if (this.order && this.removed > 0) {
      this.order = this.order.filter((member, i) => i >= this.head && this.scores.has(member));
    }
    if (!this.order) {
      this.order = [...this.scores.keys()].sort((a, b) => this.scores.get(a)! - this.scores.get(b)! || (a < b ? -1 : a > b ? 1 : 0));
    }
    this.head = 0;
    this.removed = 0;
    return this.order;
  }
}
