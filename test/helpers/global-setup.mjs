import { ensureBuiltLib } from './build-lib.mjs';
import { RedisServer } from './redis-server.mjs';

/** One private redis-server for the whole run; chaos tests start their own. */
export default async function globalSetup() {
  ensureBuiltLib();
  const server = await RedisServer.start();
  process.env.SPOOL_TEST_REDIS_URL = server.url;
  globalThis.__spoolRedis = server;
}
