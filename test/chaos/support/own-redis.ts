import { createClient } from 'redis';
import { RedisServer } from '../../helpers/redis-server.mjs';

function adminClient(url: string) {
  return createClient({ url, socket: { reconnectStrategy: 100 } });
}

export type AdminClient = ReturnType<typeof adminClient>;

/**
 * A redis-server of the test's own (free port, own directory), for scenarios
 * that kill, restart or reconfigure Redis: the server other suites share is
 * never touched. dispose() stops it by its pid and removes its directory.
 */
export async function ownRedis(options: { appendonly?: boolean; args?: string[] } = {}) {
  const server = await RedisServer.start(options);
  const admins: AdminClient[] = [];
  return {
    server,
    get url(): string {
      return server.url;
    },
    /** A plain client for commands the test sends itself (CONFIG, CLIENT KILL...). */
    async admin(): Promise<AdminClient> {
      const client = adminClient(server.url);
      client.on('error', () => undefined);
      await client.connect();
      admins.push(client);
      return client;
    },
    async dispose(): Promise<void> {
      for (const client of admins.splice(0)) client.destroy();
      await server.dispose();
    },
  };
}
