/**
 * How many jobs a worker holds beyond its concurrency, and how many
 * completion writes it keeps out at once.
 *
 * Without prefetch a slot sits idle for its completion's round trip (the
 * reply carries its next job), so a small pool either writes every
 * completion at once (one script call per job: Redis work per job is then
 * highest) or leaves slots idle while a shared write is out. With jobs held
 * in reserve, a slot whose job ended starts the next one at once; the
 * completions of the jobs that ended meanwhile go together in one call,
 * which claims their replacements: fewer calls per job and no idle slot.
 *
 * The reserve is claimed only by the calls that write completions: a
 * worker whose queue runs dry claims nothing more for it (an idle worker's
 * claims stay one per wake-up).
 *
 * 'auto' (the default) holds a reserve only while handlers are short
 * (a moving average under SHORT_MS): a reserve of long jobs would sit on
 * leases other workers could run. A reserved job is leased (counted active
 * in Redis) and its lease renewed like a running one; at close it is handed
 * back at once, never started.
 */
export type PrefetchOption = number | 'auto';

/** Handlers shorter than this on average make prefetching worth it (the reserve runs out within a round trip). */
const SHORT_MS = 2;
/** Weight of the newest run in the moving average. */
const ALPHA = 0.1;
/**
 * Largest automatic reserve. The reserve is four jobs per slot up to this:
 * it must cover the jobs that end during the writes out (three batches) or
 * slots idle again; measured at concurrency 10 (20,000 no-op jobs, on a
 * busy machine): a reserve of 10 with two writes out 8.8-9.7k jobs/s, 20
 * with three 14.3k, 40 with three 14.0-15.3k. At concurrency 100 a bigger
 * reserve makes bigger batches (fewer script calls: 20,000 jobs in ~340
 * calls instead of ~740), measured in six interleaved pairs on one Redis:
 * 64: 10.3-11.8k jobs/s, 256: 11.9-14.2k (every pair).
 */
const AUTO_MAX = 256;
/** Completion writes out at once while a reserve is held. */
const WRITES_WITH_RESERVE = 3;

export class Prefetch {
  private average: number | undefined;
  /** Reserve jobs asked for by completion writes still out. */
  private asked = 0;

  constructor(
    private readonly concurrency: number,
    private readonly option: PrefetchOption,
  ) {}

  /** Jobs held beyond the running ones right now. */
  reserve(): number {
    if (this.option !== 'auto') return this.option;
    return this.average !== undefined && this.average < SHORT_MS ? Math.min(AUTO_MAX, 4 * this.concurrency) : 0;
  }

  /**
   * How many jobs the next completion write should claim for the reserve,
   * beyond the slots it frees: what the reserve lacks (`free`: the worker's
   * free running slots, negative while it holds a reserve) less what writes
   * still out asked for. Call toppedUp() with it once the write is answered.
   */
  topUp(free: number): number {
    const n = Math.max(0, free + this.reserve() - this.asked);
    this.asked += n;
    return n;
  }

  toppedUp(n: number): void {
    this.asked -= n;
  }

  /** A handler ran for `ms` (undefined when it never ran). */
  ran(ms: number | undefined): void {
    if (ms === undefined || this.option !== 'auto') return;
    this.average = this.average === undefined ? ms : this.average + ALPHA * (ms - this.average);
  }

  /**
   * Completion writes out at once; jobs finishing meanwhile join the next.
   * With a reserve, slots never wait for a write, so three writes share
   * every completion (one call per batch). Without one, a slot waits for its
   * completion's round trip before its next job, so a small pool writes
   * each completion at once (measured: two writes out at concurrency 10 cost
   * a third of its throughput) and a large one shares calls, eight slots to
   * a write.
   */
  writesInFlight(): number {
    if (this.reserve() > 0) return WRITES_WITH_RESERVE;
    return this.concurrency < 20 ? this.concurrency : Math.ceil(this.concurrency / 8);
  }
}
