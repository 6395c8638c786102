import type { AddBatchOutcome, NewJob, Store } from '../store/store.js';

/** Jobs per add script call (the add script takes a batch; bigger bulks go in several calls). */
export const ADD_BATCH = 1000;

interface Pending {
  readonly jobs: readonly NewJob[];
  /** A bulk's batch: written in a call of its own, so maxWaiting takes or refuses it whole. */
  readonly alone: boolean;
  readonly resolve: (reply: AddBatchOutcome) => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Group commit for a producer's adds: single adds made in the same turn, or
 * while the previous write is out, go to Redis as one add script call, and
 * each caller gets the reply for its own job. A lone add is written at once
 * (after the current microtasks, no timer); 100 adds in flight share the
 * call's fixed cost (round trip, EVALSHA, the script's reads of the queue
 * meta, the index and counter writes, the wake-up).
 *
 * One write is out at a time, so Redis runs a producer's adds in call order
 * (FIFO) and a refusal is never overtaken: when maxWaiting refuses a
 * coalesced call whole, its jobs are sent again one per call, in order, and
 * each gets exactly the answer it would have got alone (the ones that fit are
 * added, the rest refused).
 */
export class AddBatcher {
  private pending: Pending[] = [];
  private writing = false;
  private scheduled = false;

  constructor(
    private readonly store: Store,
    private readonly queue: string,
  ) {}

  /** One job joins the next coalesced call; several (a bulk's batch, at most ADD_BATCH) get a call of their own. */
  add(jobs: readonly NewJob[]): Promise<AddBatchOutcome> {
    return new Promise<AddBatchOutcome>((resolve, reject) => {
      this.pending.push({ jobs, alone: jobs.length !== 1, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.scheduled || this.writing || this.pending.length === 0) return;
    this.scheduled = true;
    // After the current microtasks: adds made in the same turn join this write.
    process.nextTick(this.flush);
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.writing || this.pending.length === 0) return;
    this.writing = true;
    void this.write(this.take()).finally(() => {
      this.writing = false;
      this.kick();
    });
  };

  /** The next call's entries: a bulk's batch alone, or the single adds in front of the next bulk, up to ADD_BATCH. */
  private take(): Pending[] {
    let n = 1;
    if (!this.pending[0]!.alone) {
      while (n < this.pending.length && n < ADD_BATCH && !this.pending[n]!.alone) n += 1;
    }
    return this.pending.splice(0, n);
  }

  private async write(group: Pending[]): Promise<void> {
    const jobs = group.length === 1 ? group[0]!.jobs : group.map((p) => p.jobs[0]!);
    let reply: AddBatchOutcome;
    try {
      reply = await this.store.add(this.queue, jobs);
    } catch (err) {
      for (const p of group) p.reject(err);
      return;
    }
    if (group.length === 1) return group[0]!.resolve(reply);
    if (reply.status === 'added') {
      for (let i = 0; i < group.length; i++) group[i]!.resolve({ status: 'added', jobs: [reply.jobs[i]!] });
      return;
    }
    // NOTE: refused whole, though some may fit (or be duplicates, which are not refused):
    // one call per job, in order, gives each the answer it would have got alone.
    for (const p of group) {
      try {
        p.resolve(await this.store.add(this.queue, p.jobs));
      } catch (err) {
        p.reject(err);
      }
    }
  }
}
