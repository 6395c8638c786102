import { randomBytes } from 'node:crypto';
import { PostgresStore } from '../../lib/postgres/index.js';
import { PostgresServer, type PostgresServerOptions } from './postgres-server.mjs';
import { usePostgresStores } from './store.js';

/**
 * One private PostgreSQL server for the test file that calls this at its top
 * level: started before its tests, stopped (by pid) and removed after them.
 * The returned function gives the server once started.
 */
export function usePostgresServer(options?: PostgresServerOptions): () => PostgresServer {
  let server: PostgresServer | undefined;
  beforeAll(async () => {
    server = await PostgresServer.start(options);
  }, 60_000);
  afterAll(async () => {
    await server?.dispose();
  });
  return () => {
    if (!server) throw new Error('the PostgreSQL server of this file is not started (usePostgresServer runs in beforeAll)');
    return server;
  };
}

/** A schema name no other test uses: each test gets its own tables and functions. */
export function uniqueSchema(label = 't'): string {
  return `${label}_${randomBytes(5).toString('hex')}`;
}

/** The server URL of each store testPostgresStore() opened (the option is not public on the store). */
const urls = new WeakMap<PostgresStore, string>();

/** The connection string a store of testPostgresStore() was opened with, so a worker process can open its own on the same schema. */
export function postgresUrlOf(store: PostgresStore): string {
  const url = urls.get(store);
  if (url === undefined) throw new Error('postgresUrlOf() takes a store opened by testPostgresStore()');
  return url;
}

/** A connected PostgresStore on its own fresh schema of the file's server (migrated on connect). */
export async function testPostgresStore(server: PostgresServer, schema = uniqueSchema()): Promise<PostgresStore> {
  const store = new PostgresStore({ connectionString: server.url(), schema, migrate: true, poolSize: 5 });
  urls.set(store, server.url());
  await store.connect();
  return store;
}

/**
 * One private PostgreSQL server for the whole test file, and every
 * testStore() without a URL (so engineHarness) a PostgresStore on a fresh
 * schema of it: the Redis specs imported by the file run again on PostgreSQL.
 */
export function postgresForFile(): () => PostgresServer {
  const server = usePostgresServer();
  beforeAll(() => usePostgresStores(() => testPostgresStore(server())));
  return server;
}
