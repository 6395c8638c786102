import pg from 'pg';
import { Queue } from '../../lib/index.js';
import { PostgresSchemaMissingError, PostgresSchemaTooNewError, PostgresStore, SCHEMA_VERSION } from '../../lib/postgres/index.js';
import { uniqueSchema, usePostgresServer } from '../helpers/postgres.js';

/** Versioned migrations: run by migrate: true, once for processes starting together; a newer schema is refused. */
describe('PostgresStore migrations', () => {
  const server = usePostgresServer();

  it('connect() without migrate refuses a schema not created yet, naming the fix', async () => {
    const store = new PostgresStore({ connectionString: server().url(), schema: uniqueSchema() });
    await expect(store.connect()).rejects.toThrow(PostgresSchemaMissingError);
    await expect(store.connect()).rejects.toThrow(/at version 0, this Spool needs \d+: open the store with \{ migrate: true \}/);
    await store.disconnect();
  });

  it('stores opening together with migrate: true migrate once; the schema then serves them all', async () => {
    const schema = uniqueSchema();
    const stores = Array.from({ length: 4 }, () => new PostgresStore({ connectionString: server().url(), schema, migrate: true, poolSize: 2 }));
    await Promise.all(stores.map((s) => s.connect()));
    const client = new pg.Client({ connectionString: server().url() });
    await client.connect();
    try {
      expect((await client.query(`SELECT version FROM ${schema}.schema_version`)).rows).toEqual([{ version: SCHEMA_VERSION }]);
      await new Queue('q', { store: stores[0]! }).add('x', {});
      expect((await new Queue('q', { store: stores[3]! }).getCounts()).waiting).toBe(1);
      // A later Spool wrote version + 1: this one refuses to touch it, with or without migrate.
      await client.query(`UPDATE ${schema}.schema_version SET version = version + 1`);
      for (const migrate of [true, false]) {
        const late = new PostgresStore({ connectionString: server().url(), schema, migrate });
        const err = await late.connect().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(PostgresSchemaTooNewError);
        expect(err).toMatchObject({ schema, found: SCHEMA_VERSION + 1, known: SCHEMA_VERSION, permanent: true });
        await late.disconnect();
      }
    } finally {
      await client.end();
      await Promise.all(stores.map((s) => s.disconnect()));
    }
  });

  it('refuses a schema name that is not a plain identifier (it is spliced into SQL)', () => {
    expect(() => new PostgresStore({ connectionString: server().url(), schema: 'x; DROP TABLE y' })).toThrow(/options\.schema must be a lower-case identifier/);
    expect(() => new PostgresStore({ connectionString: server().url(), shema: 'x' } as never)).toThrow(/shema/);
  });

  it('verify() finds a job whose state and index columns disagree', async () => {
    const schema = uniqueSchema();
    const store = new PostgresStore({ connectionString: server().url(), schema, migrate: true });
    await store.connect();
    const client = new pg.Client({ connectionString: server().url() });
    await client.connect();
    try {
      const queue = new Queue('v', { store });
      const job = await queue.add('x', {});
      expect(await queue.verify()).toEqual([]);
      await client.query(`UPDATE ${schema}.jobs SET state = 'active' WHERE id = $1`, [job.id]);
      expect(await queue.verify()).toEqual([`${job.id}: active without a lease token`]);
    } finally {
      await client.end();
      await store.disconnect();
    }
  });
});
