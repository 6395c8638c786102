import type { OnApplicationShutdown } from '@nestjs/common';
import type { SpoolLogger } from '../logger.js';
import { RedisStore } from '../store/redis-store.js';
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
    private readonly stores: ReadonlyMap<string, RedisStore>,
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

  get names(): string[] {
    return [...this.stores.keys()];
  }

  get(name: string = DEFAULT_CONNECTION): RedisStore {
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
