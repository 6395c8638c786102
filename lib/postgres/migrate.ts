import { SQL_SOURCES } from './sql-sources.js';
import { PostgresSchemaMissingError, PostgresSchemaTooNewError } from './errors.js';
import { InvalidArgumentError } from '../common/errors.js';
import { describe } from '../common/validation.js';

/** What PostgresStore needs of a pool, a client, or the caller's transaction client: one query at a time. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ readonly rows: Record<string, unknown>[] }>;
}

const MIGRATIONS = Object.keys(SQL_SOURCES).filter((k) => k.startsWith('migrations/'));
const FUNCTIONS = Object.keys(SQL_SOURCES).filter((k) => k.startsWith('functions/'));

/** The schema version this Spool writes: one per file of sql/migrations. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** A schema name Spool accepts: it is spliced into SQL text, so only plain lower-case identifiers. */
export function checkSchemaName(schema: unknown): string {
  if (typeof schema !== 'string' || !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new InvalidArgumentError('PostgresStore options.schema', `must be a lower-case identifier (letters, digits, _), got ${describe(schema)}`);
  }
  return schema;
}

function sqlOf(key: string, schema: string): string {
  return SQL_SOURCES[key]!.replaceAll('@schema@', schema);
}

/** The schema version stored in `schema` (0: none yet). */
export async function schemaVersion(db: Queryable, schema: string): Promise<number> {
  // Two queries: the planner resolves a table named in a query even in a branch that never runs.
  const exists = await db.query('SELECT to_regclass($1) IS NOT NULL AS e', [`${schema}.schema_version`]);
  if (exists.rows[0]?.e !== true) return 0;
  const { rows } = await db.query(`SELECT version AS v FROM ${schema}.schema_version`);
  return Number(rows[0]?.v ?? 0);
}

/**
 * Brings the schema to this Spool's version, in one transaction under an
 * advisory lock (processes starting together migrate once): the migrations
 * not applied yet, then every function of sql/functions (CREATE OR REPLACE).
 * Refuses a schema newer than this Spool. Resolves the versions before and after.
 */
export async function migrateSchema(db: Queryable, schema: string): Promise<{ readonly from: number; readonly to: number }> {
  await db.query('BEGIN');
  try {
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`spool:${schema}`]);
    await db.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    const from = await schemaVersion(db, schema);
    if (from > SCHEMA_VERSION) throw new PostgresSchemaTooNewError(schema, from, SCHEMA_VERSION);
    if (from === 0) await db.query(`CREATE TABLE ${schema}.schema_version (version integer NOT NULL); INSERT INTO ${schema}.schema_version VALUES (0)`);
    for (const key of MIGRATIONS.slice(from)) await db.query(sqlOf(key, schema));
    for (const key of FUNCTIONS) await db.query(sqlOf(key, schema));
    await db.query(`UPDATE ${schema}.schema_version SET version = $1`, [SCHEMA_VERSION]);
    await db.query('COMMIT');
    return { from, to: SCHEMA_VERSION };
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/** Without migrating: the schema must be at this Spool's version (older: migrate first; newer: refused). */
export async function checkSchema(db: Queryable, schema: string): Promise<void> {
  const found = await schemaVersion(db, schema);
  if (found > SCHEMA_VERSION) throw new PostgresSchemaTooNewError(schema, found, SCHEMA_VERSION);
  if (found < SCHEMA_VERSION) throw new PostgresSchemaMissingError(schema, found, SCHEMA_VERSION);
}
