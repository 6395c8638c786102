import type * as Pg from 'pg';
import { InvalidArgumentError, UnknownOptionError } from '../common/errors.js';
import { assertPlainObject, describe, unknownKeys } from '../common/validation.js';
import type { AddBatchOutcome, AddOutcome, NewJob } from '../store/add-records.js';
import type { OutboxWriter, TransactionClient } from '../store/transaction.js';
import { checkSchemaName } from '../postgres/migrate.js';
import { loadPg } from '../postgres/peer.js';
import { migrateOutbox } from './migrate.js';

/** Where the outbox table lives: your pool, or a connection string (the outbox then owns its pool). */
export type OutboxOptions = ({ readonly pool: Pg.Pool; readonly connectionString?: never } | { readonly connectionString: string; readonly pool?: never }) & {
  /** The PostgreSQL schema of the outbox table. Default `spool_outbox`. */
  readonly schema?: string;
  /** Create or upgrade the outbox table on connect(). Default true. */
  readonly migrate?: boolean;
};

const OPTION_KEYS = ['pool', 'connectionString', 'schema', 'migrate'] as const;

/** An outbox row the relay set aside: Redis refused it `attempts` times (OutboxRelayOptions.maxAttempts). */
export interface OutboxFailedRow {
  /** The row's place in the outbox (its order); retry() and discard() take it. */
  readonly seq: string;
  readonly queue: string;
  readonly jobId: string;
  /** The job's name, when the row holds one. */
  readonly name: string | null;
  readonly attempts: number;
  /** Why Redis (or the relay's check of the row) refused it, the last time. */
  readonly error: string;
  /** When it was written, and when it was set aside (epoch ms, the database clock). */
  readonly createdAt: number;
  readonly failedAt: number;
}

/**
 * Transactional enqueue for a Redis store: given as RedisStore option
 * `outbox`, `queue.add(name, data, { tx })` writes the job as a row of this
 * outbox with the caller's client, in its open transaction (nothing is
 * written to Redis), and an `OutboxRelay` moves committed rows to Redis.
 *
 * @example
 * const outbox = new Outbox({ connectionString: process.env.DATABASE_URL! });
 * const store = new RedisStore({ url: 'redis://localhost:6379' }, { outbox });
 */
export class Outbox implements OutboxWriter {
  /** The schema holding the outbox table. */
  readonly schema: string;
  /** The channel NOTIFY wakes the relay on (sent on commit only: NOTIFY is transactional). */
  readonly channel: string;
  private readonly given: Pg.Pool | undefined;
  private readonly connectionString: string | undefined;
  private readonly migrateOnConnect: boolean;
  private pool: Pg.Pool | undefined;

  constructor(options: OutboxOptions) {
    assertPlainObject(options, 'Outbox options');
    const unknown = unknownKeys(options, OPTION_KEYS, 'Outbox options');
    if (unknown.length > 0) throw new UnknownOptionError(unknown);
    const { pool, connectionString } = options as { pool?: unknown; connectionString?: unknown };
    if ((pool === undefined) === (connectionString === undefined)) {
      throw new InvalidArgumentError('Outbox options', 'needs exactly one of pool and connectionString', 'pass { connectionString } or your own { pool }');
    }
    if (connectionString !== undefined && typeof connectionString !== 'string') {
      throw new InvalidArgumentError('Outbox options.connectionString', `must be a string, got ${describe(connectionString)}`);
    }
    if (pool !== undefined && (typeof pool !== 'object' || pool === null || typeof (pool as { connect?: unknown }).connect !== 'function')) {
      throw new InvalidArgumentError('Outbox options.pool', `must be a node-postgres Pool, got ${describe(pool)}`);
    }
    this.schema = checkSchemaName(options.schema ?? 'spool_outbox');
    this.channel = `spool_outbox:${this.schema}`;
    this.given = pool as Pg.Pool | undefined;
    this.connectionString = connectionString;
    this.migrateOnConnect = options.migrate ?? true;
  }

  /** Opens the pool (when the outbox owns it) and creates or upgrades the table (option `migrate`). Idempotent. */
  async connect(): Promise<Pg.Pool> {
    if (this.pool === undefined) {
      if (this.given === undefined) {
        const pool = new (await loadPg()).Pool({ connectionString: this.connectionString!, max: 3 });
        // An idle client's error (PostgreSQL restarted) must not crash the process: the pool drops it, the next query reconnects.
        pool.on('error', () => undefined);
        this.pool = pool;
      } else {
        this.pool = this.given;
      }
      if (this.migrateOnConnect) {
        // One connection for the migration's transaction: BEGIN ... COMMIT through the pool could run on several.
        const client = await this.pool.connect();
        try {
          await migrateOutbox(client, this.schema);
        } finally {
          client.release();
        }
      }
    }
    return this.pool;
  }

  /** Closes the pool the outbox owns (your own pool is left open). */
  async disconnect(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (pool !== undefined && pool !== this.given) await pool.end();
  }

  /** The rows set aside as failed, oldest first (at most `limit`, default 100). */
  async failed(limit = 100): Promise<OutboxFailedRow[]> {
    const pool = await this.connect();
    const { rows } = await pool.query<Record<string, unknown>>(
      `SELECT seq, queue, job_id, job->>'name' AS name, attempts, last_error, created_ms, failed_ms
         FROM ${this.schema}.outbox WHERE failed_ms IS NOT NULL ORDER BY seq LIMIT $1`,
      [limit],
    );
    return rows.map((r) => ({
      seq: String(r.seq),
      queue: String(r.queue),
      jobId: String(r.job_id),
      name: typeof r.name === 'string' ? r.name : null,
      attempts: Number(r.attempts),
      error: String(r.last_error ?? ''),
      createdAt: Number(r.created_ms),
      failedAt: Number(r.failed_ms),
    }));
  }

  /**
   * Puts failed rows back in the relay's way (all of them, or those of
   * `seqs`), attempts reset; they keep their place, so they move before
   * younger rows. Resolves how many. Fix the cause first (a queue's option,
   * the row's job), or they are set aside again.
   */
  async retry(seqs?: readonly string[]): Promise<number> {
    return this.onFailed(`UPDATE ${this.schema}.outbox SET failed_ms = NULL, attempts = 0, last_error = NULL`, seqs);
  }

  /** Deletes failed rows (all, or those of `seqs`): their jobs never reach Redis. Resolves how many. */
  async discard(seqs?: readonly string[]): Promise<number> {
    return this.onFailed(`DELETE FROM ${this.schema}.outbox`, seqs);
  }

  private async onFailed(statement: string, seqs: readonly string[] | undefined): Promise<number> {
    if (seqs !== undefined) {
      // Named by the first bad item, described (never the whole list: it may hold thousands).
      if (!Array.isArray(seqs)) throw new InvalidArgumentError('outbox seqs', `must be an array of row numbers as failed() lists them, got ${describe(seqs)}`);
      const bad = seqs.findIndex((q) => typeof q !== 'string' || !/^[1-9][0-9]{0,18}$/.test(q));
      if (bad >= 0) throw new InvalidArgumentError(`outbox seqs[${bad}]`, `must be one of the row numbers failed() lists (a string of digits), got ${describe(seqs[bad])}`);
    }
    const pool = await this.connect();
    const { rowCount } = await pool.query(`${statement} WHERE failed_ms IS NOT NULL AND ($1::bigint[] IS NULL OR seq = ANY($1::bigint[]))`, [seqs ?? null]);
    if ((rowCount ?? 0) > 0) await pool.query('SELECT pg_notify($1, \'\')', [this.channel]);
    return rowCount ?? 0;
  }

  /**
   * The jobs as outbox rows, in one statement with the caller's `tx`, and a
   * NOTIFY that wakes the relay once the transaction commits (selected in
   * FROM, not as a column: a `void` column is one Prisma's raw queries cannot
   * read, and `tx` may be a Prisma client). Every job is
   * reported created: maxWaiting and dedup keys apply when the relay adds it.
   */
  async write(queue: string, jobs: readonly NewJob[], tx: TransactionClient): Promise<AddBatchOutcome> {
    const { rows } = await tx.query(
      `WITH ins AS (
         INSERT INTO ${this.schema}.outbox (queue, job_id, job, created_ms)
         SELECT $1, x->>'id', x, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
           FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS t(x, n) ORDER BY n
         RETURNING created_ms)
       SELECT max(created_ms) AS now FROM ins, (SELECT pg_notify($3, '')) AS woke`,
      [queue, JSON.stringify(jobs), this.channel],
    );
    const now = Number(rows[0]?.now ?? Date.now());
    const outcomes: AddOutcome[] = jobs.map((job) => ({
      created: true,
      id: job.id,
      state: job.delay > 0 ? 'delayed' : 'waiting',
      createdAt: now,
      runAt: now + job.delay,
    }));
    return { status: 'added', jobs: outcomes };
  }
}
