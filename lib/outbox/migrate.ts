import type { Queryable } from '../postgres/migrate.js';
import { PostgresSchemaTooNewError } from '../postgres/errors.js';

/**
 * The outbox's own small versioned migrations (not those of sql/migrations):
 * an app on Redis keeps only this table in its database, none of
 * PostgresStore's. One entry per version, applied in order, never edited.
 */
const MIGRATIONS: readonly ((schema: string) => string)[] = [
  (s) => `CREATE TABLE ${s}.outbox (
    seq bigserial PRIMARY KEY,      -- commit order is close to seq order; the relay moves rows by seq
    queue text NOT NULL,
    job_id text NOT NULL,           -- the caller's jobId or the numbered id drawn for it: Redis dedups re-adds by it
    job jsonb NOT NULL,             -- the prepared job (name, data, options) as the engine hands it to Store.add
    created_ms bigint NOT NULL      -- the database clock at write: a delay counts from here, not from the relay
  )`,
  // Poison rows: a row whose relay fails for good is counted, then set aside (failed_ms) so later rows move on.
  (s) => `ALTER TABLE ${s}.outbox
    ADD COLUMN attempts integer NOT NULL DEFAULT 0,   -- relays of this row Redis refused (outages are not counted)
    ADD COLUMN last_error text,                       -- the last refusal's message
    ADD COLUMN failed_ms bigint                       -- set aside at this time after maxAttempts: the relay skips it until retried`,
];

/** The outbox schema version this Spool writes. */
export const OUTBOX_SCHEMA_VERSION = MIGRATIONS.length;

/** Brings the outbox tables of `schema` to this version, once under an advisory lock; refuses a newer one. */
export async function migrateOutbox(db: Queryable, schema: string): Promise<{ readonly from: number; readonly to: number }> {
  await db.query('BEGIN');
  try {
    await db.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`spool-outbox:${schema}`]);
    await db.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await db.query(`CREATE TABLE IF NOT EXISTS ${schema}.outbox_version (version integer NOT NULL)`);
    const { rows } = await db.query(`SELECT version AS v FROM ${schema}.outbox_version`);
    if (rows.length === 0) await db.query(`INSERT INTO ${schema}.outbox_version VALUES (0)`);
    const from = Number(rows[0]?.v ?? 0);
    if (from > OUTBOX_SCHEMA_VERSION) throw new PostgresSchemaTooNewError(schema, from, OUTBOX_SCHEMA_VERSION);
    for (const migration of MIGRATIONS.slice(from)) await db.query(migration(schema));
    await db.query(`UPDATE ${schema}.outbox_version SET version = $1`, [OUTBOX_SCHEMA_VERSION]);
    await db.query('COMMIT');
    return { from, to: OUTBOX_SCHEMA_VERSION };
  } catch (err) {
    await db.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
