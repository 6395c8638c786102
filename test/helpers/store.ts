import { randomBytes } from 'node:crypto';
import { RedisStore } from '../../lib/index.js';
import type { Store } from '../../lib/store/index.js';

/** The URL of the run's private redis-server (started by global-setup). */
export function redisUrl(): string {
  const url = process.env.SPOOL_TEST_REDIS_URL;
  if (!url) throw new Error('SPOOL_TEST_REDIS_URL is not set: run the tests through jest (global-setup starts Redis)');
  return url;
}

/** A unique key prefix, so each test file (or test) has its own keyspace. */
export function uniquePrefix(label = 't'): string {
  return `${label}-${randomBytes(4).toString('hex')}`;
}

/** Root nodes of the Redis Cluster that testStore() connects to instead of the run's Redis (see useClusterStores). */
let clusterNodes: (() => { url: string }[]) | undefined;

/**
 * From now on in this test file, testStore() without a URL (and so
 * engineHarness) connects to this Redis Cluster: test/cluster runs the engine
 * and flow specs again through it.
 */
export function useClusterStores(rootNodes: () => { url: string }[]): void {
  clusterNodes = rootNodes;
}

/** Opens the PostgresStore that testStore() returns instead of a Redis one (see usePostgresStores). */
let postgresStores: (() => Promise<Store>) | undefined;

/**
 * From now on in this test file, testStore() without a URL (and so
 * engineHarness) opens a store on PostgreSQL: test/postgres-suites runs the
 * engine, flow, throughput, ops and scheduler specs again through it.
 */
export function usePostgresStores(open: () => Promise<Store>): void {
  postgresStores = open;
}

/** A connected store with its own prefix on the run's Redis (or the file's cluster, see useClusterStores; or PostgreSQL, see usePostgresStores). */
export async function testStore(url?: string, prefix = uniquePrefix()): Promise<RedisStore> {
  if (url === undefined && postgresStores) {
    // NOTE: typed as the RedisStore the specs are written against; the spec files run on PostgreSQL
    // (test/postgres-suites) use only the Store contract of it, and those that reach for Redis are left out there.
    return (await postgresStores()) as unknown as RedisStore;
  }
  const store =
    url === undefined && clusterNodes
      ? new RedisStore({ cluster: { rootNodes: clusterNodes() }, prefix, logger: silentLogger })
      : new RedisStore({ url: url ?? redisUrl() }, { prefix, logger: silentLogger });
  await store.connect();
  return store;
}

/** Keeps expected reconnect warnings out of the test output; errors still show. */
export const silentLogger = {
  log: () => undefined,
  warn: () => undefined,
  error: (message: string, error?: unknown) => process.stderr.write(`[spool test] ${message} ${error instanceof Error ? error.message : ''}\n`),
};
