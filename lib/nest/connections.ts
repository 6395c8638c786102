import type { OnApplicationShutdown } from '@nestjs/common';
import type { SpoolLogger } from '../logger.js';
import { NatsNotify } from '../notify/nats-notify.js';
import type { NotifyAdapter } from '../notify/notify-adapter.js';
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
    /** Notify adapters the module created (notify.nats): closed after the stores. */
    private readonly adapters: readonly NotifyAdapter[] = [],
  ) {}

  /** Validates the module options, then opens every connection. */
  static async open(options: unknown, logger: SpoolLogger): Promise<SpoolConnections> {
    validateModuleOptions(options);
    const entries: [string, SpoolConnectionOptions][] = [[DEFAULT_CONNECTION, options.connection], ...Object.entries(options.connections ?? {})];
    const stores = new Map<string, RedisStore>();
    const adapters: NatsNotify[] = [];
    try {
      for (const [name, c] of entries) {
        const { waitForRedis, url, client, cluster, ...rest } = c;
        const nats = options.notify?.nats;
        // Named connections get subjects (and hint keys) of their own: `<subjectPrefix>.<name>`.
        const subjectPrefix = name === DEFAULT_CONNECTION ? nats?.subjectPrefix : `${nats?.subjectPrefix ?? 'spool'}.${name}`;
        const notify = nats && new NatsNotify({ ...nats, logger, ...(subjectPrefix !== undefined && { subjectPrefix }) });
        if (notify) adapters.push(notify);
        const store = new RedisStore({ ...(client ? { client } : cluster ? { cluster } : { url: url! }), ...rest, logger, ...(notify && { notify }) });
        stores.set(name, store);
        await (waitForRedis ? connectWaiting(store, name, logger) : store.connect());
        // NATS down at bootstrap fails it with NatsUnavailableError, as Redis down does.
        await notify?.connect();
      }
    } catch (err) {
      await Promise.allSettled([...stores.values()].map((s) => s.disconnect()));
      await Promise.allSettled(adapters.map((a) => a.close()));
      throw err;
    }
    return new SpoolConnections(options, stores, adapters);
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
    await Promise.allSettled(this.adapters.map((a) => a.close()));
  }
}

/** How often a bootstrap waiting for Redis says it still waits. */
const WAIT_LOG_MS = 5000;

/**
 * waitForRedis: connect with the client's capped backoff (at most ~2 s
 * between attempts) until Redis answers, saying every few seconds that the
 * app is still waiting, so a pod stuck in bootstrap explains itself.
 */
async function connectWaiting(store: RedisStore, name: string, logger: SpoolLogger): Promise<void> {
  const started = Date.now();
  const timer = setInterval(() => {
    logger.warn(`connection "${name}": still waiting for Redis after ${Math.round((Date.now() - started) / 1000)} s (waitForRedis: true)`);
  }, WAIT_LOG_MS);
  try {
    await store.connect({ wait: true });
  } finally {
    clearInterval(timer);
  }
  if (Date.now() - started > 1000) logger.log(`connection "${name}": Redis answered after ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
