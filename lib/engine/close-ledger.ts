/** What close() did with the jobs the worker held while it closed. */
export interface WorkerCloseResult {
  /** The timeout passed with handlers still running: they were aborted and handed back. */
  readonly timedOut: boolean;
  /** Jobs given back to waiting, attempt not counted: never started, or aborted at the timeout. */
  readonly handedBack: readonly string[];
  /** Jobs whose outcome (completion, failure, retry, delay) Redis took while the worker closed. */
  readonly written: readonly string[];
  /**
   * Jobs whose outcome or hand-back was given up: Redis did not answer
   * before the timeout (the write was retried until then) or refused it.
   * They stay active until their lease expires, then run again.
   */
  readonly givenUp: readonly string[];
}

/**
 * Every write a worker makes for the jobs it holds (their outcomes, their
 * hand-backs), so that close() waits for each one to settle, wherever it
 * was started, and reports which landed and which were given up.
 */
export class CloseLedger {
  private readonly pending = new Set<Promise<void>>();
  private recording = false;
  private readonly written: string[] = [];
  private readonly handedBack: string[] = [];
  private readonly givenUp: string[] = [];

  /** Writes still out (not settled, not given up). */
  get outstanding(): number {
    return this.pending.size;
  }

  /**
   * Records the write of job `id`'s outcome or hand-back: written when it
   * resolves, given up when it rejects (`onFailure` hears why). The promise
   * returned never rejects.
   */
  track(id: string, kind: 'outcome' | 'hand-back', write: Promise<unknown>, onFailure?: (err: unknown) => void): Promise<void> {
    const settled: Promise<void> = write.then(
      (): void => this.record(settled, id, kind === 'outcome' ? this.written : this.handedBack),
      (err: unknown): void => {
        onFailure?.(err);
        this.record(settled, id, this.givenUp);
      },
    );
    this.pending.add(settled);
    return settled;
  }

  private record(write: Promise<void>, id: string, list: string[]): void {
    this.pending.delete(write);
    if (this.recording) list.push(id);
  }

  /** The worker starts closing: from now on every write that settles is reported, the ones already out included. */
  open(): void {
    this.recording = true;
  }

  /** Resolves once no tracked write is out, those started meanwhile included. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  result(timedOut: boolean): WorkerCloseResult {
    return { timedOut, handedBack: [...this.handedBack], written: [...this.written], givenUp: [...this.givenUp] };
  }
}
