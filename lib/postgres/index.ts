/**
 * Spool on PostgreSQL: `PostgresStore` (jobs in the database an app already
 * has, transactional enqueue with `{ tx }`), `PostgresNotify` (LISTEN/NOTIFY
 * wake-ups) and the schema migrations. Needs the optional peer `pg`.
 *
 * @module spool/postgres
 */

export { PostgresStore } from './postgres-store.js';
export type { PostgresStoreOptions } from './postgres-store.js';
export { PostgresNotify } from './postgres-notify.js';
export type { PostgresNotifyOptions } from './postgres-notify.js';
export { migrateSchema, checkSchema, SCHEMA_VERSION } from './migrate.js';
export type { Queryable } from './migrate.js';
export {
  PostgresPeerMissingError,
  PostgresSchemaTooNewError,
  PostgresSchemaMissingError,
  PostgresCallError,
  PostgresUnavailableError,
  PostgresConflictError,
  PostgresUnsupportedError,
} from './errors.js';
