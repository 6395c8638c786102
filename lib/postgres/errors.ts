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
