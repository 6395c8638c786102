import { createClient } from 'redis';
import { RedisStore, UnsupportedServerError, type RedisClientLike } from '../../lib/index.js';
import { clientOptionProblems, reconnectDelay } from '../../lib/store/redis-client.js';
import { FakeRedis } from '../helpers/fake-redis.js';
import { commandOf } from '../helpers/redis-access.js';

function serverInfo(version: string, policy: string) {
  return (section: string): string =>
    section === 'memory' ? `# Memory\r\nmaxmemory:0\r\nmaxmemory_policy:${policy}\r\n` : `# Server\r\nredis_version:${version}\r\n`;
}

function recordingLogger() {
  const warnings: string[] = [];
  return { warnings, logger: { log: () => undefined, warn: (m: string) => void warnings.push(m), error: () => undefined } };
}

describe('startup checks against the server connect() reaches', () => {
  const fakes: FakeRedis[] = [];
  afterEach(async () => Promise.all(fakes.splice(0).map((f) => f.close())));

  async function fake(version: string, policy: string): Promise<FakeRedis> {
    const server = await FakeRedis.start(serverInfo(version, policy));
    fakes.push(server);
    return server;
  }

  it('refuses Redis 6 with an error that names the version and the fix', async () => {
    const server = await fake('6.2.14', 'noeviction');
    const store = new RedisStore({ url: server.url }, { logger: recordingLogger().logger });
    const err = await store.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnsupportedServerError);
    expect((err as Error).message).toMatch(/Redis 6\.2\.14 is too old.*7\.0 or newer/);
    // The refused store holds no connection: using it is a clear error, not a hang.
    await expect(store.add('q', [])).rejects.toThrow(/not connected/);
    await store.disconnect();
  });

  it('warns once about an evicting maxmemory-policy, and connect() again does not repeat it', async () => {
    const server = await fake('7.2.4', 'allkeys-lru');
    const { warnings, logger } = recordingLogger();
    const store = new RedisStore({ url: server.url }, { logger });
    await store.connect();
    await store.connect();
    expect(warnings.filter((w) => w.includes('maxmemory-policy'))).toEqual([
      expect.stringContaining('"allkeys-lru"'),
    ]);
    await store.disconnect();
  });

  it('refuses an evicting policy when requireNoEviction is set', async () => {
    const server = await fake('7.2.4', 'volatile-lru');
    const store = new RedisStore({ url: server.url }, { logger: recordingLogger().logger, requireNoEviction: true });
    await expect(store.connect()).rejects.toThrow(/volatile-lru.*requireNoEviction/);
    await store.disconnect();
  });

  it('warns once when neither INFO nor a bare HELLO may be run: the version is unknown, the connect goes on', async () => {
    const server = await FakeRedis.start(serverInfo('7.2.4', 'noeviction'), ['INFO SERVER', 'INFO MEMORY', 'HELLO', 'CONFIG GET MAXMEMORY-POLICY']);
    fakes.push(server);
    const { warnings, logger } = recordingLogger();
    const store = new RedisStore({ url: server.url }, { logger });
    await store.connect();
    expect(warnings).toEqual([
      'cannot read the Redis version: INFO and HELLO are not allowed for this user (Spool needs Redis 7.0 or newer: an older server fails on the first script call)',
      'cannot read maxmemory-policy: INFO and CONFIG are not allowed for this user (Spool needs "noeviction": make sure the server has it, or Redis may evict job keys and lose jobs)',
    ]);
    await store.disconnect();
  });

  it('accepts Redis 7 with noeviction without a word', async () => {
    const server = await fake('7.0.15', 'noeviction');
    const { warnings, logger } = recordingLogger();
    const store = new RedisStore({ url: server.url }, { logger });
    await store.connect();
    expect(warnings).toEqual([]);
    await store.disconnect();
  });
});

describe('client settings that break a job queue', () => {
  it('names a socket timeout, a command timeout and a disabled reconnect on a client you pass in', () => {
    const client = createClient({
      socket: { socketTimeout: 1000, reconnectStrategy: false },
      commandOptions: { timeout: 500 },
    }) as unknown as RedisClientLike;
    const problems = clientOptionProblems(client);
    expect(problems).toEqual([
      expect.stringContaining('socket.socketTimeout is 1000 ms'),
      expect.stringContaining('commandOptions.timeout is 500 ms'),
      expect.stringContaining('reconnectStrategy is false'),
    ]);
  });

  it("names node-redis's default 5 s command timeout on a client made without options", () => {
    expect(clientOptionProblems(createClient() as unknown as RedisClientLike)).toEqual([expect.stringContaining('commandOptions.timeout is 5000 ms')]);
  });

  it('finds nothing wrong with the client the store creates for a URL', async () => {
    const store = new RedisStore({ url: process.env.SPOOL_TEST_REDIS_URL! }, { logger: recordingLogger().logger });
    await store.connect();
    expect(clientOptionProblems(commandOf(store, 'test'))).toEqual([]);
    await store.disconnect();
  });
});

describe('reconnect backoff', () => {
  it('grows from 50 ms and is capped near 2 s however many retries, never giving up', () => {
    expect(reconnectDelay(0)).toBeGreaterThanOrEqual(50);
    expect(reconnectDelay(0)).toBeLessThan(150);
    expect(reconnectDelay(3)).toBeGreaterThanOrEqual(400);
    for (const retries of [6, 10, 100, 1_000_000]) {
      const delay = reconnectDelay(retries);
      expect(delay).toBeGreaterThanOrEqual(2000);
      expect(delay).toBeLessThan(2100);
    }
  });
});
