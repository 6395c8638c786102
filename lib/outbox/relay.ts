import type * as Pg from 'pg';
import type { SpoolLogger } from '../logger.js';
import { stderrLogger } from '../logger.js';
import type { NewJob, Store } from '../store/store.js';
import type { Outbox } from './outbox.js';

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
  readonly logger?: SpoolLogger;
  /** Called at each step of a move; a throw there aborts the move as a crash would (for tests of exactly-once). */
  readonly onStep?: (step: RelayStep, rows: number) => void;
}

interface Row {
  readonly seq: string;
  readonly queue: string;
  readonly job: NewJob;
  readonly age: number;
}

/**
 * Moves committed outbox rows to Redis, in seq order: in one PostgreSQL
 * transaction it locks a batch (FOR UPDATE SKIP LOCKED, so several relays
 * share the work), adds the jobs to Redis with their ids, then deletes the
 * rows and commits. A crash after the Redis write leaves the rows; the next
 * move adds them again and Redis writes nothing (the id names a job already,
 * `reportTaken` keeps a numbered id from being renumbered): one job per row.
 * Woken by NOTIFY on commit, and polls as a safety net.
 */
export class OutboxRelay {
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly logger: SpoolLogger;
  private listener: Pg.PoolClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(private readonly options: OutboxRelayOptions) {
    this.pollMs = options.pollMs ?? 1000;
    this.batchSize = options.batchSize ?? 500;
    this.logger = options.logger ?? stderrLogger;
  }

  /** Listens for commits, starts the poll, and moves what is already committed. */
  async start(): Promise<void> {
    if (!this.stopped) return;
    this.stopped = false;
    const pool = await this.options.outbox.connect();
    this.listener = await pool.connect();
    this.listener.on('notification', () => this.wake());
    // A lost listener only delays moves to the next poll.
    this.listener.on('error', (err) => this.logger.warn(`outbox relay: listener lost: ${err.message}`));
    await this.listener.query(`LISTEN "${this.options.outbox.channel}"`);
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Stops listening and polling; resolves once the move under way (if any) is done. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    const listener = this.listener;
    this.listener = undefined;
    if (listener !== undefined) {
      await listener.query(`UNLISTEN "${this.options.outbox.channel}"`).catch(() => undefined);
      listener.release();
    }
    await this.running;
  }

  /** Moves every committed row now; resolves how many were moved (throws what a move threw). */
  async drain(): Promise<number> {
    let moved = 0;
    for (;;) {
      const n = await this.moveBatch();
      moved += n;
      if (n < this.batchSize) return moved;
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
      .catch((err: unknown) => this.logger.warn(`outbox relay: move failed, retried on the next wake or poll: ${err instanceof Error ? err.message : String(err)}`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  private async moveBatch(): Promise<number> {
    const { outbox, store, onStep } = this.options;
    const client = await (await outbox.connect()).connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<Row>(
        `SELECT seq, queue, job, (extract(epoch FROM clock_timestamp()) * 1000)::bigint - created_ms AS age
           FROM ${outbox.schema}.outbox ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [this.batchSize],
      );
      onStep?.('read', rows.length);
      for (const run of runsByQueue(rows)) {
        // The delay counts from the write: the time the row waited for its commit and the relay is taken off.
        const jobs = run.map((r): NewJob => ({ ...r.job, delay: Math.max(0, r.job.delay - Number(r.age)), reportTaken: true }));
        const reply = await store.add(run[0]!.queue, jobs);
        // A full queue (maxWaiting): the rows stay and are tried again, as a producer would retry.
        if (reply.status === 'full') throw new Error(`queue ${run[0]!.queue} is full (maxWaiting ${reply.limit})`);
      }
      onStep?.('written', rows.length);
      if (rows.length > 0) await client.query(`DELETE FROM ${outbox.schema}.outbox WHERE seq = ANY($1::bigint[])`, [rows.map((r) => r.seq)]);
      await client.query('COMMIT');
      return rows.length;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
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
