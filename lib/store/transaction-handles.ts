import { InvalidArgumentError } from '../common/errors.js';
import { describe } from '../common/validation.js';
import type { TransactionClient } from './transaction.js';

/**
 * What `{ tx }` accepts, told apart by shape only: Spool never imports
 * typeorm or @prisma/client (they stay the app's own packages), so each ORM
 * is described here by the few members Spool calls or checks.
 */

/** A TypeORM `QueryRunner` (after `startTransaction()`). */
export interface TypeOrmQueryRunnerLike {
  readonly isTransactionActive: boolean;
  readonly isReleased: boolean;
  startTransaction(...args: never[]): Promise<void>;
  query(query: string, parameters: unknown[] | undefined, useStructuredResult: true): Promise<{ readonly records?: unknown[] }>;
}

/** A TypeORM `EntityManager` of a transaction (`dataSource.transaction(async (manager) => ...)`): its `queryRunner` is the transaction's. */
export interface TypeOrmEntityManagerLike {
  readonly queryRunner?: TypeOrmQueryRunnerLike;
  transaction(...args: never[]): Promise<unknown>;
  query(query: string, parameters?: unknown[]): Promise<unknown>;
}

/** A Prisma interactive-transaction client (`prisma.$transaction(async (tx) => ...)`). */
export interface PrismaTransactionLike {
  $queryRawUnsafe(query: string, ...values: unknown[]): PromiseLike<unknown>;
  $executeRawUnsafe(query: string, ...values: unknown[]): PromiseLike<number>;
}

/** The caller's open transaction, as node-postgres, TypeORM or Prisma hands it out. */
export type TransactionHandle = TransactionClient | TypeOrmEntityManagerLike | TypeOrmQueryRunnerLike | PrismaTransactionLike;

const ACCEPTS =
  'pass a node-postgres client after BEGIN, a TypeORM EntityManager of dataSource.transaction(...) or QueryRunner after startTransaction(), or the tx client of Prisma\'s prisma.$transaction(async (tx) => ...)';

/**
 * The handle `tx` as the one shape the stores write with (node-postgres'
 * `query(text, values) -> { rows }`), checked at each add: a handle that is
 * not inside a transaction is refused rather than written in autocommit,
 * which would break the very promise of `{ tx }` without a sound.
 */
export function transactionClientOf(tx: unknown, field: string): TransactionClient {
  if (typeof tx !== 'object' || tx === null) throw notAHandle(tx, field);
  if (has(tx, '$queryRawUnsafe')) return prismaClient(tx, field);
  if (has(tx, 'startTransaction') && has(tx, 'query')) return queryRunnerClient(tx as TypeOrmQueryRunnerLike, field);
  if (has(tx, 'transaction') && has(tx, 'query') && (holds(tx, 'dataSource') || holds(tx, 'connection'))) return entityManagerClient(tx as TypeOrmEntityManagerLike, field);
  if (has(tx, 'query')) return pgClient(tx as TransactionClient, field);
  throw notAHandle(tx, field);
}

function pgClient(tx: TransactionClient, field: string): TransactionClient {
  // NOTE: a node-postgres Pool has query() too, but each of its queries takes any free connection and commits alone.
  if (has(tx, 'connect') && holds(tx, 'idleCount') && holds(tx, 'totalCount')) {
    throw new InvalidArgumentError(field, 'is a node-postgres Pool, not a client inside a transaction (each add would commit on its own)', 'pass the client of await pool.connect() after BEGIN');
  }
  return tx;
}

function prismaClient(tx: object, field: string): TransactionClient {
  // NOTE: Prisma's tx client is the root client minus $connect, $disconnect, $on, $use and $extends (and, before
  // Prisma 7, $transaction); the root client would run each statement in a transaction of its own.
  if (has(tx, '$connect')) {
    throw new InvalidArgumentError(field, 'is a PrismaClient, not the client of an interactive transaction (each add would commit on its own)', 'pass the tx of prisma.$transaction(async (tx) => ...)');
  }
  const prisma = tx as PrismaTransactionLike;
  return {
    async query(text, values = []) {
      const rows = await prisma.$queryRawUnsafe(text, ...values);
      return { rows: rows as Record<string, unknown>[] };
    },
  };
}

function queryRunnerClient(runner: TypeOrmQueryRunnerLike, field: string): TransactionClient {
  if (runner.isReleased || !runner.isTransactionActive) {
    throw new InvalidArgumentError(field, `is a TypeORM QueryRunner with no open transaction${runner.isReleased ? ' (released)' : ''}`, 'call queryRunner.startTransaction() first, and add before commitTransaction()');
  }
  return {
    async query(text, values) {
      // The structured result: its `records` are the rows whatever the statement (the plain one is [rows, count] for UPDATE/DELETE).
      const result = await runner.query(text, values, true);
      return { rows: (result.records ?? []) as Record<string, unknown>[] };
    },
  };
}

function entityManagerClient(manager: TypeOrmEntityManagerLike, field: string): TransactionClient {
  const runner = manager.queryRunner;
  // NOTE: dataSource.manager has no queryRunner: every statement would take a pooled connection and commit alone.
  if (runner === undefined || !runner.isTransactionActive) {
    throw new InvalidArgumentError(
      field,
      'is a TypeORM EntityManager outside a transaction (e.g. dataSource.manager)',
      'pass the manager given by dataSource.transaction(async (manager) => ...), or queryRunner.manager after startTransaction()',
    );
  }
  return queryRunnerClient(runner, field);
}

function notAHandle(tx: unknown, field: string): InvalidArgumentError {
  return new InvalidArgumentError(field, `must be your open transaction, got ${describe(tx)}`, ACCEPTS);
}

function holds(value: object, field: string): boolean {
  return field in value;
}

function has(value: object, method: string): boolean {
  return typeof (value as Record<string, unknown>)[method] === 'function';
}
