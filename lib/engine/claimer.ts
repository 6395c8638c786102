import { clockOf, releaseForStore, type ClockTimer } from '../store/clock.js';
import type { ClaimOutcome, Fetch, JobRecord, Store } from '../store/store.js';
import type { NameRoom } from './name-caps.js';

export interface ClaimerOptions {
  readonly store: Store;
  readonly queue: string;
  readonly workerId: string;
  readonly lockMs: number;
  readonly batch: number;
  /** The worker hears pushes (Store.onPushed): its claims say how many running slots a push may fill (Fetch.pushSlots). */
  readonly pushable: () => boolean;
  /** Slots not taken by held jobs. */
  readonly capacity: () => number;
  /** Capped job names and how many more of each a claim may take (see NameCaps). */
  readonly nameRoom: () => readonly NameRoom[];
  readonly onClaimed: (records: JobRecord[]) => void;
  /** A claim found the queue empty. */
  readonly onEmpty: () => void;
  readonly report: (err: unknown, context: string) => void;
}

/**
 * When and how much a worker claims. It claims into free slots, goes idle
 * when a claim comes back short, and wakes on a sched message only for the
 * slots the wake-hint budget grants it (seed 000), so N new jobs wake about N
 * workers. A wake-up heard while every slot was taken is answered as soon as
 * a claim comes back short or a slot frees: the job it announced may have
 * been added after that claim ran.
 *
 * A short answer is news only if nothing newer was heard while its call was
 * out. Answers can come back out of order (a completion's claim is answered
 * after its write is confirmed, e.g. the WAIT of durability 'replicated',
 * while a claim sent later is answered at once): a completion whose claim
 * ran dry before an add, answered after the wake-up that add sent and the
 * claim it caused, would leave the worker idle with the store's idle marker
 * spent by that wake-up, so no later add would announce anything to it.
 * So a short answer to a call sent before the latest news (`heard`) claims
 * again instead: a claim that runs dry now sets the marker again.
 */
export class Claimer {
  /** Slots asked for by claims in flight. */
  private reserved = 0;
  private pendingWake = false;
  private running = false;
  private readonly inFlight = new Set<Promise<void>>();
  /** Set while a rate limit or throttle forbids starting jobs: claims wait for it. */
  private waitTimer: ClockTimer | undefined;
  /** Claims failed in a row (Redis unreachable): spaces the retries. */
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  /** The last look found nothing to claim. */
  private idle = false;
  /** Counts the news of new work (wake-ups, pushes): a claim's answer is judged by what was heard when it was sent. */
  private heard = 0;
  /** What `heard` was when each completion's claim (nextFetch) was sent. */
  private readonly sentAt = new WeakMap<Fetch, number>();

  constructor(private readonly o: ClaimerOptions) {}

  /** The last look found nothing to claim (read by the worker's 'drained' check). */
  get isIdle(): boolean {
    return this.idle;
  }

  /**
   * What completions claim for the `slots` they free (complete-and-claim-next,
   * one round trip): a job each, none when the worker is closing (`open`
   * false) or the queue looked empty. `nameRoom`: the caps that apply.
   * `freed`: the running slots the completed jobs leave (the rest of `slots`
   * tops up the prefetch reserve); with what is free already, the slots a
   * push may fill when this claim comes back short.
   */
  nextFetch(open: boolean, slots: number, nameRoom: readonly NameRoom[], freed: number): Fetch {
    const count = open && !this.idle ? slots : 0;
    const pushSlots = this.o.pushable() ? Math.max(0, this.free() + freed) : undefined;
    const fetch = { count, workerId: this.o.workerId, lockMs: this.o.lockMs, nameRoom, pushSlots };
    this.sentAt.set(fetch, this.heard);
    return fetch;
  }

  /** The jobs completions claimed with `fetch` (nextFetch): taken, then the next claim decided as for any claim. */
  claimedWithCompletion(fetch: Fetch, outcome: { readonly next: JobRecord[]; readonly waitMs: number }): void {
    this.o.onClaimed(outcome.next);
    if (fetch.count > 0) this.answered({ jobs: outcome.next, waitMs: outcome.waitMs }, fetch.count, this.sentAt.get(fetch) ?? this.heard);
  }

  /**
   * Jobs an add leased to this worker while it was idle (a push): taken as a
   * claim's are. The queue is not known empty any more, so the completions
   * claim again, and the claim that runs dry names the worker for the next push.
   */
  pushed(jobs: JobRecord[]): void {
    this.heard += 1;
    if (this.running) this.idle = false;
    this.o.onClaimed(jobs);
  }

  /** A capped name's run ended below its cap: its waiting jobs may be claimed again, so the queue is not known empty. */
  capReopened(): void {
    this.idle = false;
  }

  start(): void {
    this.running = true;
    this.fill();
  }

  stop(): void {
    this.running = false;
    clockOf(this.o.store).clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
  }

  /** Resolves once claims already sent have been answered. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  free(): number {
    return this.o.capacity() - this.reserved;
  }

  /** Claims up to `limit` jobs into free slots; `hinted`: only as many as the wake-hint budget grants. */
  fill(limit = Infinity, hinted = false): void {
    if (!this.running || this.waitTimer) return;
    const count = Math.min(this.free(), limit, this.o.batch);
    if (count <= 0) return;
    this.reserved += count;
    const sent = this.heard;
    const claim = this.o.store
      .claim(this.o.queue, { count, workerId: this.o.workerId, lockMs: this.o.lockMs, nameRoom: this.o.nameRoom(), woken: hinted, pushSlots: this.o.pushable() ? count : undefined })
      .then(
        (outcome) => {
          this.reserved -= count;
          this.failures = 0;
          this.o.onClaimed(outcome.jobs);
          if (hinted && outcome.jobs.length > 0 && outcome.waitMs === 0) {
            // The budget granted some slots (maybe fewer than free): keep claiming until a claim comes back short.
            this.idle = false;
            this.fill();
          } else {
            this.answered(outcome, count, sent);
          }
        },
        (err) => {
          this.reserved -= count;
          this.failures += 1;
          if (this.failures === 1) this.o.report(err, 'claiming jobs failed; retrying until the store answers');
          this.retrySoon();
        },
      )
      .finally(() => this.inFlight.delete(claim));
    this.inFlight.add(claim);
  }

  /**
   * A failed claim is tried again with capped backoff rather than at the next
   * poll: after an outage, work waiting in Redis is picked up within about two
   * seconds of it answering, however long the poll interval.
   */
  private retrySoon(): void {
    if (!this.running || this.retryTimer) return;
    const delay = Math.min(100 * 2 ** Math.min(this.failures - 1, 5), 2000);
    this.retryTimer = releaseForStore(setTimeout(() => {
      this.retryTimer = undefined;
      this.fill();
    }, delay), this.o.store);
  }

  /** What to do after a claim (or a complete's claim of the next job) for `asked` slots. */
  private answered(outcome: ClaimOutcome, asked: number, sent: number): void {
    if (outcome.jobs.length >= asked) {
      this.idle = false;
      this.fill();
    } else if (outcome.waitMs > 0) {
      this.waitFor(outcome.waitMs);
    } else if (sent !== this.heard) {
      // Stale: new work was announced while this call was out (see the class comment).
      this.idle = false;
      this.fill();
    } else {
      this.short();
    }
  }

  /**
   * The queue (or every group with work) is at its rate limit: claim again
   * when the window reopens rather than going idle, since no add will
   * announce that moment.
   */
  waitFor(ms: number): void {
    if (!this.running || this.waitTimer) return;
    this.idle = false;
    // Rate windows are kept in the store's time, so the wait is too.
    this.waitTimer = clockOf(this.o.store).setTimeout(() => {
      this.waitTimer = undefined;
      this.fill();
    }, ms);
  }

  /** A claim came back with fewer jobs than asked: nothing more is waiting. */
  short(): void {
    this.idle = true;
    if (this.pendingWake) {
      this.pendingWake = false;
      this.wake();
    } else {
      this.o.onEmpty();
    }
  }

  /**
   * New work was announced: claim for the free slots, spending the wake-hint
   * budget inside the same call (one round trip from message to job). When
   * the notify adapter keeps the budget (NATS KV), take hints from it first
   * and claim only what they grant; none left: stay asleep.
   */
  wake(): void {
    if (!this.running) return;
    this.heard += 1;
    if (this.free() <= 0) {
      this.pendingWake = true;
      return;
    }
    const notify = this.o.store.notify;
    if (!notify.takeWakeHints) {
      this.idle = false;
      this.fill(Infinity, true);
      return;
    }
    notify.takeWakeHints(this.o.queue, Math.min(this.free(), this.o.batch)).then(
      (granted) => {
        if (granted <= 0) return;
        this.idle = false;
        this.fill(granted);
      },
      (err) => {
        // Better a claim too many than a job nobody hears of.
        this.o.report(err, 'taking a wake hint failed; claiming anyway');
        this.idle = false;
        this.fill();
      },
    );
  }

  /** Messages may have been missed (subscription dropped), or a cap was lifted: look for work. */
  look(): void {
    this.idle = false;
    this.fill();
  }

  /**
   * A slot was freed by a finished job. A wake-up heard while every slot was
   * held (a reserve can fill them after a short claim) is answered here too:
   * an idle worker's completions claim nothing, so no short claim would.
   */
  slotFreed(): void {
    if (this.pendingWake) {
      this.pendingWake = false;
      this.wake();
    } else if (this.idle) {
      this.o.onEmpty();
    } else {
      this.fill();
    }
  }
}
