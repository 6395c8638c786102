import type { AddBatchOutcome, NewJob } from './add-records.js';
import type { TransactionHandle } from './transaction-handles.js';

/**
 * The caller's database client inside its own open transaction (node-postgres:
 * a `PoolClient` or `Client` after `BEGIN`), for transactional enqueue: a store
 * that can (PostgresStore) writes the jobs with it, so they commit or roll back
 * with the caller's own rows.
 */
export interface TransactionClient {
  query(text: string, values?: unknown[]): Promise<{ readonly rows: Record<string, unknown>[] }>;
}

/** The call options of add / addBulk / FlowProducer.add: `tx` writes in the caller's transaction. */
export interface EnqueueOptions {
  /**
   * The caller's open transaction: a node-postgres client after BEGIN, a
   * TypeORM EntityManager of `dataSource.transaction()` or QueryRunner after
   * `startTransaction()`, or Prisma's interactive `$transaction` client. The
   * jobs are written in that transaction (invisible to workers until it
   * commits, gone if it rolls back; workers are woken on commit). Needs a
   * store that writes to that database: PostgresStore on the same database,
   * or a RedisStore with an `outbox` there.
   */
  readonly tx?: TransactionHandle;
}

/**
 * Where a Redis store writes the jobs of an add with `{ tx }`: an outbox in
 * the caller's database (lib/outbox's `Outbox`), moved to Redis after commit
 * by a relay. The store layer knows only this shape, never the outbox itself.
 */
export interface OutboxWriter {
  /** Writes `jobs` of `queue` as outbox rows with the caller's client `tx`, inside its open transaction. */
  write(queue: string, jobs: readonly NewJob[], tx: TransactionClient): Promise<AddBatchOutcome>;
}
