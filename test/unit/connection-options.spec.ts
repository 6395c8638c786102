import { InvalidArgumentError, RedisStore, SpoolBootstrapError, UnknownOptionError } from '../../lib/index.js';
import { validateModuleOptions } from '../../lib/nest/module-options.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('did not throw');
}

/** Connection objects are checked when the store (or the module) is built, with errors that name the field and the fix. */
describe('connection objects', () => {
  it.each([
    ['{ host, port, username, password, db, tls }', { host: 'redis.internal', port: 6380, username: 'app', password: 'pw', db: 2, tls: { ca: '-----BEGIN CERTIFICATE-----', servername: 'redis.internal' } }],
    ['{ port } alone (host 127.0.0.1)', { port: 6380 }],
    ['a rediss:// URL with tls', { url: 'rediss://redis:6380', tls: { ca: Buffer.from('pem'), cert: 'c', key: 'k' } }],
    ['a cluster with tls and a password', { cluster: { rootNodes: [{ url: 'rediss://n1:7000' }] }, tls: true, password: 'pw' }],
    ['a sentinel', { sentinel: { name: 'mymaster', sentinels: [{ host: 's1', port: 26379 }], password: 'sentinel-pw', tls: true }, password: 'pw', db: 1 }],
  ])('accepts %s', (_what, connection) => {
    expect(() => new RedisStore(connection as never)).not.toThrow();
    expect(() => validateModuleOptions({ connection })).not.toThrow();
  });

  it.each([
    [{ url: 'redis://r:6379', tls: true }, 'RedisStore connection.tls is given with a redis:// URL, which is not encrypted: use a rediss:// URL'],
    [{ url: 'redis://r:6379', password: 'pw' }, 'RedisStore connection.password cannot be given with url: put them in the URL (redis://user:password@host:port/db), or use { host, port, username, password, db } instead of url'],
    [{ url: 'redis://r', host: 'r' }, 'RedisStore connection has both url and host: pass one way to reach Redis'],
    [{ host: 'r', port: 70000 }, 'RedisStore connection.port must be a port number from 1 to 65535, got 70000'],
    [{ host: 'r', username: 'app' }, 'RedisStore connection.password is missing: an ACL user needs its password'],
    [{ host: 'r', db: -1 }, 'RedisStore connection.db must be a database number >= 0, got -1'],
    [{ host: 'r', tls: 'yes' }, 'RedisStore connection.tls must be true or { ca, cert, key, servername, rejectUnauthorized }, got "yes"'],
    [{ host: 'r', tls: { cert: 'c' } }, 'RedisStore connection.tls.key is missing: a client certificate needs both cert and key'],
    [{ host: 'r', tls: { ca: 42 } }, "RedisStore connection.tls.ca must be PEM text (a string or Buffer) or an array of them, got 42: read the file: ca: readFileSync('ca.pem')"],
    [{ cluster: { rootNodes: [{ url: 'redis://n:7000' }] }, db: 1 }, 'RedisStore connection.db is not available on Redis Cluster: a cluster has database 0 only: use a prefix to keep apps apart'],
    [{ sentinel: { sentinels: [{ host: 's', port: 26379 }] } }, "RedisStore connection.sentinel.name is missing: the master's name in the sentinels' configuration (sentinel monitor <name> ...)"],
    [{ sentinel: { name: 'm', sentinels: [] } }, "RedisStore connection.sentinel.sentinels must be a non-empty array of { host, port }, got an empty array: e.g. sentinels: [{ host: '10.0.0.1', port: 26379 }]"],
    [{ sentinel: { name: 'm', sentinels: [{ host: 's', port: '26379' }] } }, 'RedisStore connection.sentinel.sentinels[0].port must be a port number from 1 to 65535, got "26379"'],
    [{ client: {}, tls: true }, 'RedisStore connection.tls cannot be given with client: a client of your own is used as it is: configure TLS and credentials when you create it'],
  ])('refuses %j', (connection, message) => {
    const error = thrown(() => new RedisStore(connection as never));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error.message).toBe(message);
    // The module says the same at bootstrap, under its own field.
    const nest = thrown(() => validateModuleOptions({ connection }));
    expect(nest).toBeInstanceOf(SpoolBootstrapError);
    expect(nest.message).toContain(message.replace('RedisStore connection', 'QueueModule options.connection'));
  });

  it('unknown keys of tls and sentinel get a did-you-mean', () => {
    const tls = thrown(() => new RedisStore({ host: 'r', tls: { servername: 'r', rejectUnauthorised: false } } as never));
    expect(tls).toBeInstanceOf(UnknownOptionError);
    expect(tls.message).toBe('RedisStore connection.tls.rejectUnauthorised is not an option: did you mean "rejectUnauthorized"?');
    const sentinel = thrown(() => new RedisStore({ sentinel: { masterName: 'm', sentinels: [{ host: 's', port: 1 }] } } as never));
    expect(sentinel.message).toBe('RedisStore connection.sentinel.masterName is not an option: did you mean "name"?');
  });
});

/**
 * What reaches node-redis (no server here: the TLS and Sentinel suites run
 * real servers; a TLS cluster is not among them, so this is what shows its
 * settings reach every node).
 */
describe('connection objects as node-redis options', () => {
  it('tls, username and password of a cluster go to every node (defaults), under what you set there', async () => {
    const { openClient } = await import('../../lib/store/connections/open-client.js');
    const { resolveConnection } = await import('../../lib/store/connections/options.js');
    const client = openClient(resolveConnection({ cluster: { rootNodes: [{ url: 'rediss://n1:7000' }], defaults: { socket: { servername: 'mine' } } }, tls: { ca: 'CA' }, username: 'app', password: 'pw' }, 'c')) as unknown as {
      options: { socket?: Record<string, unknown> };
    };
    expect(client.options.socket).toMatchObject({ tls: true, ca: 'CA', servername: 'mine', keepAlive: true });
  });

  it('a sentinel connection: the master takes the connection credentials and TLS, the sentinels theirs (TLS defaulting to the master one)', async () => {
    const { sentinelOptions } = await import('../../lib/store/connections/open-client.js');
    const options = sentinelOptions({ name: 'm', sentinels: [{ host: 's1', port: 26379 }], password: 'spw' }, { username: 'app', password: 'pw', db: 3, tls: { ca: 'CA' } });
    expect(options).toMatchObject({
      name: 'm',
      sentinelRootNodes: [{ host: 's1', port: 26379 }],
      nodeClientOptions: { username: 'app', password: 'pw', database: 3, disableOfflineQueue: true, socket: { tls: true, ca: 'CA' } },
      sentinelClientOptions: { password: 'spw', socket: { tls: true, ca: 'CA' } },
      masterPoolSize: 1,
    });
    expect(options.sentinelClientOptions).not.toHaveProperty('username');
  });
});
