import { RedisServer } from './redis-server.mjs';

/**
 * A private redis-server for one test file, started before its first test
 * and stopped (by pid) after its last: for tests that read server-wide
 * counters or kill processes, which other files would blur or disturb.
 */
export function usePrivateRedis(): { readonly url: string } {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => {
    await server?.dispose();
  });
  return {
    get url(): string {
      if (!server) throw new Error('the private redis-server is not started yet: read its url inside a test or hook');
      return server.url;
    },
  };
}
