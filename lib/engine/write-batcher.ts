/**
 * Group commit for a worker's completions: items pushed while `limit()`
 * writes are out wait and go together in the next write, as one store call.
 * An idle worker writes each item at once (nothing waits behind a quiet
 * queue); a busy one amortises the call's fixed cost (the script's keys,
 * its reads of the queue meta, the index writes, metrics, retention and the
 * claim of the next jobs) over every job that finished meanwhile. Items
 * pushed in the same turn of microtasks go in one write.
 *
 * A write takes at most `maxBatch` items (the rest go in the next): Redis runs
 * nothing else while one script runs, so a batch as big as a busy pool's
 * whole backlog would stall every other client of the server for as long.
 */
export class WriteBatcher<T> {
  private pending: { readonly item: T; readonly resolve: () => void; readonly reject: (err: unknown) => void }[] = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    /** Writes out at once; read before each write (the worker's prefetch changes it). */
    private readonly limit: () => number,
    /** Writes one batch; a rejection fails every item of it. */
    private readonly write: (items: T[]) => Promise<void>,
    /** Most items in one write. */
    private readonly maxBatch: number = Number.POSITIVE_INFINITY,
  ) {}

  /** Resolves once the batch holding `item` was written. */
  push(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.scheduled || this.inFlight >= this.limit() || this.pending.length === 0) return;
    this.scheduled = true;
    // After the current microtasks: completions settling in the same turn join this write.
    process.nextTick(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.inFlight >= this.limit() || this.pending.length === 0) return;
    const batch = this.pending.length > this.maxBatch ? this.pending.splice(0, this.maxBatch) : this.pending;
    if (batch === this.pending) this.pending = [];
    this.inFlight += 1;
    this.write(batch.map((p) => p.item)).then(
      () => this.settle(batch, undefined, true),
      (err: unknown) => this.settle(batch, err, false),
    );
    // Items over maxBatch left behind: a further write if the limit allows one.
    this.kick();
  };

  private settle(batch: typeof this.pending, err: unknown, ok: boolean): void {
    this.inFlight -= 1;
    for (const p of batch) {
      if (ok) p.resolve();
      else p.reject(err);
    }
    this.kick();
  }
}
