import type { Command } from 'commander';
import type { GlobalOptions } from './context.js';
import { openPostgres } from './context.js';
import { UsageError } from './errors.js';
import { SCHEMA_VERSION, schemaVersion } from '../postgres/migrate.js';
import { loadPg } from '../postgres/peer.js';

/**
 * `spool migrate --postgres-url <url>`: creates or upgrades the PostgresStore
 * schema (the same migrations as `migrate: true` on connect); refuses a schema
 * newer than this Spool. Redis needs no migration.
 */
export function registerMigrate(program: Command): void {
  program
    .command('migrate')
    .description('create or upgrade the PostgreSQL schema of a PostgresStore (--postgres-url)')
    .action(async (_opts: unknown, cmd: Command) => {
      const options = cmd.optsWithGlobals<GlobalOptions>();
      if (options.postgresUrl === undefined) throw new UsageError('migrate needs --postgres-url (or SPOOL_POSTGRES_URL): Redis needs no migration');
      const before = await versionOf(options);
      const store = await openPostgres(options, true);
      await store.disconnect();
      const line = before.to === before.from ? `schema "${options.schema}" is at version ${before.to}, nothing to do` : `schema "${options.schema}" migrated from version ${before.from} to ${before.to}`;
      process.stdout.write(options.json ? `${JSON.stringify({ schema: options.schema, ...before })}\n` : `${line}\n`);
    });
}

/** The version before migrating, read without changing anything. */
async function versionOf(options: GlobalOptions): Promise<{ from: number; to: number }> {
  const pg = await loadPg();
  const client = new pg.Client({ connectionString: options.postgresUrl });
  try {
    await client.connect();
    return { from: await schemaVersion(client, options.schema), to: SCHEMA_VERSION };
  } catch {
    // Unreachable: openPostgres reports it in its own words.
    return { from: 0, to: SCHEMA_VERSION };
  } finally {
    await client.end().catch(() => undefined);
  }
}
