import type { OnApplicationShutdown } from '@nestjs/common';
import type { SpoolLogger } from '../logger.js';
import { RedisStore } from '../store/redis-store.js';
import type { Store } from '../store/store.js';
import { SpoolBootstrapError } from './errors.js';
import { validateModuleOptions, type QueueModuleOptions, type SpoolConnectionOptions } from './module-options.js';
import { DEFAULT_CONNECTION } from './tokens.js';

/**
 * One RedisStore per named connection. Connected while the module is created
 * (so any provider can add jobs from its onModuleInit), disconnected at
 * application shutdown, after every worker drained (workers close earlier,
 * in beforeApplicationShutdown).
 */
export class SpoolConnections implements OnApplicationShutdown {
  private constructor(
    readonly options: QueueModuleOptions,
    private readonly stores: ReadonlyMap<string, Store>,
  ) {}

  /** Validates the module options, then opens every connection. */
  static async open(options: unknown, logger: SpoolLogger): Promise<SpoolConnections> {
    validateModuleOptions(options);
    const entries: [string, SpoolConnectionOptions][] = [[DEFAULT_CONNECTION, options.connection], ...Object.entries(options.connections ?? {})];
    const stores = new Map<string, RedisStore>();
    try {
      for (const [name, c] of entries) {
        const store = new RedisStore(c.client ? { client: c.client } : { url: c.url! }, {
          prefix: c.prefix,
          logger,
          requireNoEviction: c.requireNoEviction,
          transientRetryMs: c.transientRetryMs,
        });
        stores.set(name, store);
        await store.connect();
      }
    } catch (err) {
      await Promise.allSettled([...stores.values()].map((s) => s.disconnect()));
      throw err;
    }
    return new SpoolConnections(options, stores);
  }

  /**
   * Stores that live in the process (the testing module): every connection
   * gets `makeStore(name)` and nothing reaches for Redis. Connection settings
   * (url, client) are not checked; every other option is, as in production.
   */
  static inProcess(options: unknown, makeStore: (connection: string) => Store): SpoolConnections {
    const placeholder = { url: 'redis://in-process' };
    const raw = (typeof options === 'object' && options !== null ? options : {}) as Partial<QueueModuleOptions>;
    const checked = {
      ...raw,
      connection: placeholder,
      ...(raw.connections && { connections: Object.fromEntries(Object.keys(raw.connections).map((name) => [name, placeholder])) }),
    };
    validateModuleOptions(checked);
    const names = [DEFAULT_CONNECTION, ...Object.keys(raw.connections ?? {})];
    return new SpoolConnections(raw as QueueModuleOptions, new Map(names.map((name) => [name, makeStore(name)])));
  }

  get names(): string[] {
    return [...this.stores.keys()];
  }

  get(name: string = DEFAULT_CONNECTION): Store {
    const store = this.stores.get(name);
    if (!store) {
      throw new SpoolBootstrapError(`connection "${name}"`, 'is not configured', `add it to QueueModule.forRoot({ connections: { ${name}: { url } } }); configured: ${this.names.join(', ')}`);
    }
    return store;
  }

  /**
   * A bootstrap step failed after the connections opened: Nest will not
   * close an app that never started, so close them here and let the process
   * exit with the error.
   */
  async abandon(err: unknown): Promise<never> {
    await this.onApplicationShutdown();
    throw err;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled([...this.stores.values()].map((s) => s.disconnect()));
  }
}
