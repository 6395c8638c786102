import { ReplyShapeError } from '../store/errors.js';

import { ID_BASE } from '../store/numbered-ids.js';

// Defined with the store, which numbers ids anew too (a sharded queue's renumbering, lib/store/sharded-store.ts).
export { ID_BASE, NUMBERED_ID } from '../store/numbered-ids.js';

/** The first block a producer draws, and the largest: blocks double from one to the other. */
const FIRST_BLOCK = 16;
const LARGEST_BLOCK = 4096;

/**
 * How far past a taken number a store moves the counter before it numbers a
 * job anew (lua/includes/ids SPOOL_ID_MARGIN): past any block drawn around it,
 * a producer holding its block and the next.
 */
export const RENUMBER_MARGIN = 2 * LARGEST_BLOCK;

interface Waiter {
  /** Its id; a job with its own id (`passes`: it waits only for its turn, inTurn) gets ''. */
  resolve(id: string): void;
  reject(err: unknown): void;
  readonly passes?: true;
}

/**
 * Ids for the jobs a producer adds without a jobId: decimal numbers from the
 * queue's counter in the store (Store.reserveIds) plus ID_BASE, drawn a block at a time,
 * so every process gets ids no other gets and an add rarely waits for one.
 * Why numbers: an id is written into the job's key, the fifo list and its
 * events, and 26-character ULIDs made a waiting job cost 1.18x BullMQ's
 * memory (bench/notes/history.md); a number is a few bytes, and Redis stores it as
 * an integer in a list. Custom ids may not be decimal numbers
 * (validateJobId), so the two never meet.
 *
 * A producer that adds a few jobs and exits leaves the rest of its block
 * unused: ids are unique, not gapless. Within one producer they increase.
 */
export class JobIds {
  /** The current block: ids `at` .. `end` (empty when at > end). */
  private at = 1;
  private end = 0;
  /** A block drawn ahead while the current one ran low. */
  private spare: readonly [number, number] | undefined;
  private block = FIRST_BLOCK;
  private drawing = false;
  /** A block was drawn once: a producer draws its first on its first add, whatever its jobs' ids. */
  private drawn = false;
  private readonly waiters: Waiter[] = [];

  /** `reserve(count)`: takes `count` ids from the queue's counter, resolves the last. */
  constructor(private readonly reserve: (count: number) => Promise<number>) {}

  /** An id: at once while the block holds one, else once the next block is drawn. */
  take(): string | Promise<string> {
    const id = this.waiters.length === 0 ? this.fromBlocks() : undefined;
    if (id !== undefined) return id;
    return new Promise<string>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.draw();
    });
  }

  /**
   * For a job with its own jobId: resolves once the jobs that asked for ids
   * before it have theirs (undefined when none wait), so the adds of one turn
   * still reach the store together and in call order.
   */
  inTurn(): Promise<void> | undefined {
    // Before the first block too: a job without an id in the same turn will wait for it.
    if (this.waiters.length === 0 && this.drawn) return undefined;
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve: () => resolve(), reject, passes: true });
      this.draw();
    });
  }

  /** Drops the ids in hand (other jobs hold them: the store's counter went back); the next take draws. */
  discard(): void {
    this.at = 1;
    this.end = 0;
    this.spare = undefined;
  }

  private fromBlocks(): string | undefined {
    if (this.at > this.end && this.spare) {
      [this.at, this.end] = this.spare;
      this.spare = undefined;
    }
    if (this.at > this.end) return undefined;
    const id = String(ID_BASE + this.at++);
    // A quarter of the block left: draw the next now, so a steady producer never waits.
    if (!this.spare && this.end - this.at < this.block / 4) this.draw();
    return id;
  }

  private draw(): void {
    if (this.drawing) return;
    this.drawing = true;
    this.drawBlock().then(
      () => {
        this.drawing = false;
        this.serve();
      },
      (err: unknown) => {
        this.drawing = false;
        // The adds waiting for ids fail with the store's error (those with their own go on); the next take draws again.
        for (const waiter of this.waiters.splice(0)) {
          if (waiter.passes) waiter.resolve('');
          else waiter.reject(err);
        }
      },
    );
  }

  private async drawBlock(): Promise<void> {
    // One turn's wait first: the jobs of a bulk ask for their ids in one turn and share one draw.
    await Promise.resolve();
    const count = Math.max(this.block, this.waiters.filter((w) => !w.passes).length);
    this.block = Math.min(this.block * 2, LARGEST_BLOCK);
    const last = await this.reserve(count);
    if (!Number.isSafeInteger(last) || last < count) throw new ReplyShapeError('reserveIds', `expected the counter's new value (>= ${count}), got ${String(last)}`);
    this.drawn = true;
    if (this.at > this.end) {
      this.at = last - count + 1;
      this.end = last;
    } else {
      this.spare = [last - count + 1, last];
    }
  }

  /** Hands the drawn ids to the adds waiting for them, in the order they asked. */
  private serve(): void {
    let served = 0;
    for (; served < this.waiters.length; served++) {
      const waiter = this.waiters[served]!;
      if (waiter.passes) {
        waiter.resolve('');
        continue;
      }
      const id = this.fromBlocks();
      if (id === undefined) break;
      waiter.resolve(id);
    }
    this.waiters.splice(0, served);
    if (this.waiters.length > 0) this.draw();
  }
}
