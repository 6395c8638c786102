import type * as Pg from 'pg';
import { InvalidArgumentError, SpoolError } from '../common/errors.js';
import { describe } from '../common/validation.js';
import type { SpoolLogger } from '../logger.js';
import { stderrLogger } from '../logger.js';
import { StoreNotConnectedError } from '../store/errors.js';
import { StoreError, type NewJob, type Store } from '../store/store.js';
import type { Outbox } from './outbox.js';
import { OutboxRowError, rowJob } from './row.js';

/** The points of a move where a test may stop the relay (a "crash": the transaction rolls back, the rows stay). */
export type RelayStep = 'read' | 'written';

/** What an OutboxRelay moves, where to, and how often it looks without a wake-up. */
export interface OutboxRelayOptions {
  /** The outbox whose committed rows are moved. */
  readonly outbox: Outbox;
  /** The Redis store the rows' jobs are added to. */
  readonly store: Store;
  /** The safety net under LISTEN/NOTIFY: how often the outbox is read anyway, in ms. Default 1,000. */
  readonly pollMs?: number;
  /** Rows moved per transaction. Default 500. */
  readonly batchSize?: number;
  /**
   * Refusals of one row (Redis refused its job for good, or the row holds no
   * job) before it is set aside as failed, so later rows move on. An outage is
   * not a refusal and is not counted. Default 5. See Outbox.failed() / retry().
   */
  readonly maxAttempts?: number;
  readonly logger?: SpoolLogger;
  /** Called at each step of a move; a throw there aborts the move as a crash would (for tests of exactly-once). */
  readonly onStep?: (step: RelayStep, rows: number) => void;
}

interface Row {
  readonly seq: string;
  readonly queue: string;
  readonly job: unknown;
  readonly age: number;
  readonly attempts: number;
}

/** A row Redis refused: its seq and why. */
interface Refusal {
  readonly row: Row;
  readonly error: string;
}

/**
 * Moves committed outbox rows to Redis, in seq order: in one PostgreSQL
 * transaction it locks a batch (FOR UPDATE SKIP LOCKED, so several relays
 * share the work), adds the jobs to Redis with their ids, then deletes the
 * rows and commits. A crash after the Redis write leaves the rows; the next
 * move adds them again and Redis writes nothing (the id names a job already,
 * `reportTaken` keeps a numbered id from being renumbered): one job per row.
 * Woken by NOTIFY on commit, and polls as a safety net.
 *
 * A poison row (Redis refuses its job for good, or it holds no valid job)
 * stops the move at its place, so order holds, and is counted; after
 * `maxAttempts` refusals it is set aside (Outbox.failed(), retry(),
 * discard(); `spool outbox`) and the rows after it move on. An outage of
 * Redis or PostgreSQL is not a refusal: the move rolls back and is tried again.
 */
export class OutboxRelay {
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly maxAttempts: number;
  private readonly logger: SpoolLogger;
  private relisten: NodeJS.Timeout | undefined;
  private listener: Pg.PoolClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(private readonly options: OutboxRelayOptions) {
    this.pollMs = whole(options.pollMs, 1000, 'pollMs');
    this.batchSize = whole(options.batchSize, 500, 'batchSize');
    this.maxAttempts = whole(options.maxAttempts, 5, 'maxAttempts');
    this.logger = options.logger ?? stderrLogger;
  }

  /** Listens for commits, starts the poll, and moves what is already committed. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    try {
      await this.listen();
    } catch (err) {
      this.stopped = true;
      throw err;
    }
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** LISTENs on a client of its own; a lost one (a restart of PostgreSQL) is replaced, and a move runs then. */
  private async listen(): Promise<void> {
    const client = await (await this.options.outbox.connect()).connect();
    client.on('notification', () => this.wake());
    client.on('error', (err) => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.release(err);
      this.logger.warn(`outbox relay: listener lost (${err.message}); listening again`);
      this.listenAgain();
    });
    try {
      await client.query(`LISTEN "${this.options.outbox.channel}"`);
    } catch (err) {
      client.release(err instanceof Error ? err : true);
      throw err;
    }
    if (this.stopped) {
      client.release();
      return;
    }
    this.listener = client;
  }

  /** Every half second until PostgreSQL answers; commits meanwhile sent no NOTIFY it heard, so a move follows. */
  private listenAgain(): void {
    if (this.stopped || this.relisten !== undefined) return;
    this.relisten = setTimeout(() => {
      this.relisten = undefined;
      if (this.stopped) return;
      this.listen().then(
        () => this.wake(),
        () => this.listenAgain(),
      );
    }, 500);
    this.relisten.unref();
  }

  /** Stops listening and polling; resolves once the move under way (if any) is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    clearTimeout(this.relisten);
    this.relisten = undefined;
    const listener = this.listener;
    this.listener = undefined;
    if (listener !== undefined) {
      await listener.query(`UNLISTEN "${this.options.outbox.channel}"`).catch(() => undefined);
      listener.release();
    }
    await this.running;
  }

  /**
   * Moves every committed row now; resolves how many were moved (throws what
   * a move threw: an outage). A refused row stops it there (counted, set aside
   * after maxAttempts, the rows after it then moved).
   */
  async drain(): Promise<number> {
    let moved = 0;
    for (;;) {
      const { n, more } = await this.moveBatch();
      moved += n;
      if (!more) return moved;
    }
  }

  /** One drain at a time: a wake during a drain runs one more after it (rows committed meanwhile). */
  private wake(): void {
    if (this.stopped) return;
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .then(() => undefined)
      .catch((err: unknown) => this.logger.warn(`outbox relay: move failed, retried on the next wake or poll: ${messageOf(err)}`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** One transaction: the rows moved (n), and whether to go on at once (a full batch, or a row just set aside). */
  private async moveBatch(): Promise<{ n: number; more: boolean }> {
    const { outbox, onStep } = this.options;
    const client = await (await outbox.connect()).connect();
    // A checked-out client has no listener of the pool's: a connection lost between two queries (PostgreSQL
    // restarted while the move waits on Redis) would be an unhandled 'error' event. The next query fails instead.
    let lost: Error | undefined;
    const onLost = (err: Error): void => void (lost = err);
    client.on('error', onLost);
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<Row>(
        `SELECT seq, queue, job, attempts, (extract(epoch FROM clock_timestamp()) * 1000)::bigint - created_ms AS age
           FROM ${outbox.schema}.outbox WHERE failed_ms IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      onStep?.('read', rows.length);
      const moved: string[] = [];
      let refusal: Refusal | undefined;
      for (const run of runsByQueue(rows)) {
        refusal = await this.addRun(run, moved);
        if (refusal !== undefined) break;
      }
      onStep?.('written', rows.length);
      if (moved.length > 0) await client.query(`DELETE FROM ${outbox.schema}.outbox WHERE seq = ANY($1::bigint[])`, [moved]);
      const setAside = refusal !== undefined && (await this.refused(client, refusal));
      await client.query('COMMIT');
      return { n: moved.length, more: setAside || (refusal === undefined && rows.length === this.batchSize) };
    } catch (err) {
      if (lost === undefined) await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.off('error', onLost);
      // A lost connection is destroyed, not put back in the pool.
      client.release(lost);
    }
  }

  /**
   * Adds one run of a queue's rows (one add), pushing the seqs written; a refusal answers the first row refused,
   * the rows before it added one by one. An outage or a full queue throws: the whole move is tried again later.
   */
  private async addRun(run: readonly Row[], moved: string[]): Promise<Refusal | undefined> {
    const jobs: NewJob[] = [];
    for (const row of run) {
      try {
        jobs.push(this.jobOf(row));
      } catch (err) {
        // A row without a valid job: the rows before it go first, so order holds.
        const before = jobs.length > 0 ? await this.addRun(run.slice(0, jobs.length), moved) : undefined;
        return before ?? { row, error: messageOf(err) };
      }
    }
    try {
      await this.add(run[0]!.queue, jobs);
      moved.push(...run.map((r) => r.seq));
      return undefined;
    } catch (err) {
      if (!refusedForGood(err)) throw err;
      if (run.length === 1) return { row: run[0]!, error: messageOf(err) };
    }
    // Which row Redis refuses: one at a time (each add is idempotent by its id, a row written already is not doubled).
    for (let i = 0; i < run.length; i++) {
      try {
        await this.add(run[i]!.queue, [jobs[i]!]);
        moved.push(run[i]!.seq);
      } catch (err) {
        if (!refusedForGood(err)) throw err;
        return { row: run[i]!, error: messageOf(err) };
      }
    }
    return undefined;
  }

  private async add(queue: string, jobs: readonly NewJob[]): Promise<void> {
    const reply = await this.options.store.add(queue, jobs);
    // A full queue (maxWaiting): the rows stay and are tried again, as a producer would retry.
    if (reply.status === 'full') throw new QueueFullForNow(queue, reply.limit);
  }

  /** The row's job as Store.add takes it; the delay counts from the write (the wait for commit and relay taken off). */
  private jobOf(row: Row): NewJob {
    const job = rowJob(row.job);
    return { ...job, delay: Math.max(0, job.delay - Number(row.age)), reportTaken: true };
  }

  /** Counts the refusal on its row; past maxAttempts sets it aside. Resolves whether it did. */
  private async refused(client: Pg.PoolClient, { row, error }: Refusal): Promise<boolean> {
    const attempts = Number(row.attempts) + 1;
    const setAside = attempts >= this.maxAttempts;
    await client.query(
      `UPDATE ${this.options.outbox.schema}.outbox SET attempts = $2, last_error = $3,
              failed_ms = CASE WHEN $4 THEN (extract(epoch FROM clock_timestamp()) * 1000)::bigint END
        WHERE seq = $1`,
      [row.seq, attempts, error.slice(0, 4000), setAside],
    );
    const what = `outbox relay: row ${row.seq} (queue ${row.queue}) refused (${attempts}/${this.maxAttempts}): ${error}`;
    if (setAside) this.logger.error(`${what}; set aside as failed, later rows move on (Outbox.failed(), retry(), or "spool outbox")`);
    else this.logger.warn(`${what}; later rows wait, tried again on the next wake or poll`);
    return setAside;
  }
}

/** A full queue stops the move without counting a refusal: it drains, and the rows then move. */
class QueueFullForNow extends SpoolError {
  constructor(queue: string, limit: number) {
    super(`queue ${queue} is full (maxWaiting ${limit})`);
  }
}

/**
 * A refusal that repeating the same add cannot fix: a row that holds no job, a store error marked permanent (a
 * script Redis refused), or an error the store's encoding threw on the job. Not: an outage, a full queue, a store
 * not connected (the app is shutting down).
 */
function refusedForGood(err: unknown): boolean {
  if (err instanceof QueueFullForNow || err instanceof StoreNotConnectedError) return false;
  return !(err instanceof StoreError) || err.permanent;
}

/** A count option: a whole number >= 1, or its default. */
function whole(value: unknown, fallback: number, key: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new InvalidArgumentError(`OutboxRelay options.${key}`, `must be a whole number >= 1, got ${describe(value)}`);
  }
  return value;
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Consecutive rows of one queue: each run is one add, and seq order holds across queues. */
function runsByQueue(rows: readonly Row[]): Row[][] {
  const runs: Row[][] = [];
  for (const row of rows) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last[0]!.queue === row.queue) last.push(row);
    else runs.push([row]);
  }
  return runs;
}
