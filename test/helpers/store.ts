import { randomBytes } from 'node:crypto';
import { RedisStore } from '../../lib/index.js';

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

/** A connected store with its own prefix on the run's Redis. */
export async function testStore(url = redisUrl(), prefix = uniquePrefix()): Promise<RedisStore> {
  const store = new RedisStore({ url }, { prefix, logger: silentLogger });
  await store.connect();
  return store;
}

/** Keeps expected reconnect warnings out of the test output; errors still show. */
export const silentLogger = {
  log: () => undefined,
  warn: () => undefined,
  error: (message: string, error?: unknown) => process.stderr.write(`[spool test] ${message} ${error instanceof Error ? error.message : ''}\n`),
};
