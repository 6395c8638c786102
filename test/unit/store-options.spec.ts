import { InvalidArgumentError, Queue, RedisStore, UnknownOptionError } from '../../lib/index.js';
import { resolveStoreConfig } from '../../lib/store/store-options.js';
import { redisUrl, silentLogger, uniquePrefix } from '../helpers/store.js';

// One shape for the engine and the Nest module: new RedisStore({ url, prefix })
// means what QueueModule's connection: { url, prefix } means.
describe('RedisStore options: one shape, nothing silently ignored', () => {
  const url = 'redis://127.0.0.1:1';

  it('takes prefix and the other options in the connection object, like the Nest module', () => {
    expect(new RedisStore({ url, prefix: 'x' }).prefix).toBe('x');
    expect(resolveStoreConfig({ url, prefix: 'x', requireNoEviction: true, transientRetryMs: 5, outageLogInterval: 1000 })).toEqual({
      connection: { kind: 'url', url, auth: {} },
      prefix: 'x',
      requireNoEviction: true,
      transientRetryMs: 5,
      outageLogInterval: 1000,
      durability: 'async',
      replicationTimeoutMs: 1000,
      commandTimeoutMs: 5000,
    });
  });

  it('gives the two-argument form the same meaning', () => {
    expect(resolveStoreConfig({ url }, { prefix: 'x', requireNoEviction: true })).toEqual(resolveStoreConfig({ url, prefix: 'x', requireNoEviction: true }));
    expect(new RedisStore({ url }, { prefix: 'x' }).prefix).toBe('x');
    // The same value twice is harmless; two values for one key are refused.
    expect(new RedisStore({ url, prefix: 'x' } as never, { prefix: 'x' }).prefix).toBe('x');
    expect(() => new RedisStore({ url, prefix: 'x' } as never, { prefix: 'y' })).toThrow('RedisStore options.prefix is also given in the connection object');
  });

  it.each([
    [{ url, prefx: 'x' }, 'RedisStore connection.prefx is not an option: did you mean "prefix"?'],
    [{ url, requireNoEvictions: true }, 'RedisStore connection.requireNoEvictions is not an option: did you mean "requireNoEviction"?'],
    [{ ulr: url }, 'RedisStore connection.ulr is not an option: did you mean "url"?'],
  ])('refuses an unknown key of the connection object %p with a did-you-mean', (connection, message) => {
    let thrown: unknown;
    try {
      new RedisStore(connection as never);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(UnknownOptionError);
    expect((thrown as Error).message).toBe(message);
  });

  it('refuses bad values, naming the field', () => {
    expect(() => new RedisStore({ url, client: {} } as never)).toThrow('RedisStore connection has both url and client');
    expect(() => new RedisStore({ url, requireNoEviction: 'yes' } as never)).toThrow(InvalidArgumentError);
    expect(() => new RedisStore({ url, outageLogInterval: 0 })).toThrow('RedisStore options.outageLogInterval must be a whole number of ms >= 1');
    expect(() => new RedisStore({ url: 42 } as never)).toThrow('RedisStore connection.url must be a string, got 42');
    expect(() => new RedisStore({ url, cluster: { rootNodes: [{ url }] } } as never)).toThrow('RedisStore connection has both url and cluster');
    expect(() => new RedisStore({ cluster: { rootNodes: [] } })).toThrow('RedisStore connection.cluster.rootNodes must be a non-empty array');
    expect(() => new RedisStore({ cluster: 'redis://a:7000' } as never)).toThrow('RedisStore connection.cluster must be node-redis cluster options');
    expect(() => new RedisStore({ url, durability: 'sync' } as never)).toThrow("RedisStore options.durability must be 'async' or 'replicated'");
    expect(() => new RedisStore({ url, replicationTimeoutMs: 0 })).toThrow('RedisStore options.replicationTimeoutMs must be a whole number of ms >= 1');
    expect(() => new RedisStore({ url, durabilty: 'replicated' } as never)).toThrow('did you mean "durability"?');
    expect(() => new RedisStore({ url, commandTimeoutMs: 0 })).toThrow('RedisStore options.commandTimeoutMs must be a whole number of ms >= 1, got 0');
    expect(() => new RedisStore({ url, commandTimeoutMs: '5s' } as never)).toThrow('RedisStore options.commandTimeoutMs must be a whole number of ms >= 1');
    // A WAIT holds its connection for replicationTimeoutMs: the commands queued behind it must not time out meanwhile.
    expect(() => new RedisStore({ url, durability: 'replicated', replicationTimeoutMs: 3000, commandTimeoutMs: 2000 })).toThrow(
      'RedisStore options.commandTimeoutMs (2000 ms) must be above replicationTimeoutMs (3000 ms)',
    );
  });

  it('bounds commands by 5 s unless told, plus the WAIT time with durability replicated', () => {
    expect(resolveStoreConfig({ url }).commandTimeoutMs).toBe(5000);
    expect(resolveStoreConfig({ url, commandTimeoutMs: 750 }).commandTimeoutMs).toBe(750);
    expect(resolveStoreConfig({ url, durability: 'replicated', replicationTimeoutMs: 2000 }).commandTimeoutMs).toBe(7000);
    expect(resolveStoreConfig({ url }, { commandTimeoutMs: 1200 }).commandTimeoutMs).toBe(1200);
  });

  it('takes Redis Cluster options in the one-object form, with durability', () => {
    const cluster = { rootNodes: [{ url: 'redis://127.0.0.1:7000' }] };
    expect(resolveStoreConfig({ cluster, prefix: 'x', durability: 'replicated', replicationTimeoutMs: 250 })).toMatchObject({
      connection: { cluster },
      prefix: 'x',
      durability: 'replicated',
      replicationTimeoutMs: 250,
    });
  });

  it('puts jobs where a store built with the other form looks', async () => {
    const prefix = uniquePrefix('shape');
    const one = new RedisStore({ url: redisUrl(), prefix, logger: silentLogger });
    const two = new RedisStore({ url: redisUrl() }, { prefix, logger: silentLogger });
    await Promise.all([one.connect(), two.connect()]);
    try {
      await new Queue('q', { store: one }).add('n', {}, { jobId: 'j1' });
      expect((await new Queue('q', { store: two }).getJob('j1'))?.state).toBe('waiting');
      expect(await new Queue('q', { store: two }).verify()).toEqual([]);
    } finally {
      await Promise.all([one.disconnect(), two.disconnect()]);
    }
  });
});
