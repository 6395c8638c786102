import { PeerMissingError } from '../common/errors.js';
import { StoreError } from '../store/errors.js';

/**
 * `pg` (node-postgres) is an optional peer: PostgresStore needs it installed.
 *
 * Do: `npm install pg`.
 */
export class PostgresPeerMissingError extends PeerMissingError {
  constructor(cause: unknown) {
    super(['pg'], 'PostgresStore needs the optional peer "pg" (node-postgres): npm install pg', { cause });
  }
}

/**
 * The database holds a Spool schema (or outbox table) of a newer version than
 * this Spool knows: an older process must not write to it. Nothing was changed.
 *
 * Do: upgrade spool in this app to the version that migrated the schema, or
 * point it at another schema.
 */
export class PostgresSchemaTooNewError extends StoreError {
  constructor(readonly schema: string, readonly found: number, readonly known: number) {
    super(`PostgreSQL schema "${schema}" is at version ${found}, newer than this Spool knows (${known}): upgrade spool in this app, or use another schema`, true);
  }
}

/**
 * The schema is missing or older than this Spool and the store was opened
 * without `migrate: true`. Nothing was changed.
 *
 * Do: run the migrations first: `migrate: true` on one process, or
 * `spool migrate --postgres-url ...`.
 */
export class PostgresSchemaMissingError extends StoreError {
  constructor(readonly schema: string, readonly found: number, readonly known: number) {
    super(
      `PostgreSQL schema "${schema}" is at version ${found}, this Spool needs ${known}: open the store with { migrate: true } (or run "spool migrate --postgres-url ...") first`,
      true,
    );
  }
}

/**
 * A PostgresStore call failed in the database (an error other than an
 * unreachable server); `fn` names the call, `cause` holds the database's error.
 *
 * Do: read `cause` (permissions, a full disk, a schema edited by hand);
 * repeating the call will not help until that is fixed.
 */
export class PostgresCallError extends StoreError {
  constructor(readonly fn: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`PostgreSQL call ${fn} failed: ${message}`, true, { cause });
  }
}

/**
 * The PostgreSQL server cannot be reached (down, refusing connections, or the
 * connection dropped): not permanent, a worker waits it out.
 *
 * Do: check that PostgreSQL runs and the connection string is right; retry
 * the add later, with the same jobId to stay idempotent.
 */
export class PostgresUnavailableError extends StoreError {
  constructor(what: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`${what}: PostgreSQL is unreachable: ${message}; check that it runs and the connection string is right`, false, { cause });
  }
}

/**
 * The database refused the call for a reason that passes: a deadlock, a
 * serialization failure, a lock not available, too many connections, or a
 * statement cancelled (statement_timeout, a cancel request). Its transaction rolled back, so
 * nothing was written; not permanent, a worker repeats its write (every
 * transition is idempotent for the same lease token) and a producer may
 * retry the add (with the same jobId to be safe).
 *
 * Do: nothing in a worker (it retries); in a producer, retry the call with
 * the same jobId, and look at pg_stat_activity / pg_locks if it keeps
 * happening (a long transaction holding locks, max_connections reached).
 */
export class PostgresConflictError extends StoreError {
  constructor(readonly fn: string, readonly sqlState: string, cause: unknown) {
    const message = cause instanceof Error ? cause.message : String(cause);
    super(`PostgreSQL call ${fn} was refused for now (SQLSTATE ${sqlState}: ${message}); nothing was written, retry it (a worker does)`, false, { cause });
  }
}

/** SQLSTATEs of a refusal that passes (PostgresConflictError): 40001 serialization, 40P01 deadlock, 55P03 lock not available, 53* resources, 57014 cancelled. */
const PASSING = /^(40001|40P01|55P03|53\d{3}|57014)$/;

/** SQLSTATE classes and socket errors that mean "the server is not there now" rather than "the call is wrong". */
function unreachable(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (/^(08|57P)/.test(code) || ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND'].includes(code))) return true;
  const message = (err as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && /Connection terminated|connection timeout|Client has encountered a connection error/i.test(message);
}

/**
 * The typed error of a failed call `fn`: PostgresUnavailableError (server
 * down, restarting, connection dropped), PostgresConflictError (a refusal
 * that passes), else PostgresCallError (permanent: the call is wrong).
 * Duck-typed on `code`, as node-postgres errors may come from another realm.
 */
export function postgresError(fn: string, err: unknown): PostgresUnavailableError | PostgresConflictError | PostgresCallError {
  if (err instanceof PostgresUnavailableError || err instanceof PostgresConflictError || err instanceof PostgresCallError) return err;
  if (unreachable(err)) return new PostgresUnavailableError(fn, err);
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && PASSING.test(code)) return new PostgresConflictError(fn, code, err);
  return new PostgresCallError(fn, err);
}

/**
 * A feature this store does not have (yet): nothing was written. No call of
 * this version throws it; it is exported so code can catch it.
 *
 * Do: use a RedisStore for that feature, or leave it out on PostgreSQL.
 */
export class PostgresUnsupportedError extends StoreError {
  constructor(what: string) {
    super(`${what} is not supported by PostgresStore yet`, true);
  }
}
