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
 * leases other workers could run. Its size is about HOLD_MS of work per
 * slot at that average, between four jobs per slot and AUTO_MAX. A reserved job is leased (counted active
 * in Redis) and its lease renewed like a running one; at close it is handed
 * back at once, never started.
 */
export type PrefetchOption = number | 'auto';

/** Handlers shorter than this on average make prefetching worth it (the reserve runs out within a round trip). */
const SHORT_MS = 2;
/** Weight of the newest run in the moving average. */
const ALPHA = 0.1;
/**
 * The automatic reserve holds about this much work per slot at the handlers'
 * average (never fewer than four jobs per slot, never more than AUTO_MAX):
 * very short jobs get a big reserve, slower ones a small one, so a worker
 * never sits on more than a few tens of milliseconds of work others could run.
 */
const HOLD_MS = 25;
/**
 * Largest automatic reserve. A bigger reserve makes bigger completion
 * batches (fewer script calls per job); measured with no-op jobs, 20,000
 * per run, interleaved runs on one Redis (2-core machine): concurrency 1:
 * reserve 4 4.4-5.3k jobs/s, 16 6.9-8.1k, 64 8.9-10.8k, 256 12.4-12.6k;
 * concurrency 10: 40 7.8-8.7k, 160 10.0-11.5k, 256 11.6-12.7k;
 * concurrency 100: 64 10.3-11.8k, 256 11.9-14.2k, 512 12.5-13.8k.
 */
const AUTO_MAX = 256;
/** Completion writes out at once while a reserve is held (more when MAX_WRITE_BATCH requires). */
const WRITES_WITH_RESERVE = 3;
/**
 * Most completions in one write (one script call). A reserve lets a busy pool's
 * completions pile up into batches as large as concurrency + reserve; Redis
 * serves no other client while a script runs, so one call is bounded: 128
 * no-op completions with their claims ran ~5 ms on the 2-core bench machine
 * (bench/notes/history.md), where an unbounded c100 batch of ~270 ran 12 ms.
 */
export const MAX_WRITE_BATCH = 128;

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
    if (this.average === undefined || this.average >= SHORT_MS) return 0;
    const held = Math.floor((this.concurrency * HOLD_MS) / Math.max(this.average, 0.01));
    return Math.min(AUTO_MAX, Math.max(4 * this.concurrency, held));
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
   * every completion (one call per batch; enough writes for every held job
   * when batches are at MAX_WRITE_BATCH). Without one, a slot waits for its
   * completion's round trip before its next job, so a small pool writes
   * each completion at once (measured: two writes out at concurrency 10 cost
   * a third of its throughput) and a large one shares calls, eight slots to
   * a write.
   */
  writesInFlight(): number {
    const reserve = this.reserve();
    if (reserve > 0) return Math.max(WRITES_WITH_RESERVE, Math.ceil((this.concurrency + reserve) / MAX_WRITE_BATCH));
    return this.concurrency < 20 ? this.concurrency : Math.ceil(this.concurrency / 8);
  }
}
