import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { SpoolLogger } from '../logger.js';
import { NatsNotify } from '../notify/nats-notify.js';
import type { NotifyAdapter } from '../notify/notify-adapter.js';
import { RedisStore, type RedisStoreConfig } from '../store/redis-store.js';
import type { Store } from '../store/store.js';
import { SpoolBootstrapError } from './errors.js';
import { validateModuleOptions, type QueueModuleOptions, type SpoolConnectionOptions } from './module-options.js';
import { DEFAULT_CONNECTION } from './tokens.js';

/** How one connection is opened: its store, and whether the bootstrap waits for Redis. */
interface Opening {
  readonly store: Store;
  readonly notify?: NatsNotify;
  /** Wait for Redis at bootstrap, and why (for the "still waiting" lines); undefined: fail at once. */
  readonly wait?: string;
}

/**
 * One RedisStore per named connection, built (and its options checked) when
 * the module is created but opened only in the lifecycle, at module init:
 * a bootstrap that fails before it (a provider whose dependency is missing)
 * leaves nothing open, and the process can exit with the error. The module
 * is global, so Nest runs its onModuleInit before that of the app's own
 * modules: any provider of them can add jobs from its onModuleInit.
 * Disconnected at application shutdown, after every worker drained
 * (workers close earlier, in beforeApplicationShutdown).
 */
export class SpoolConnections implements OnModuleInit, OnApplicationShutdown {
  private opening: Promise<void> | undefined;

  private constructor(
    readonly options: QueueModuleOptions,
    private readonly stores: ReadonlyMap<string, Store>,
    /** Notify adapters the module created (notify.nats): closed after the stores. */
    private readonly adapters: readonly NotifyAdapter[],
    private readonly plan: () => readonly (readonly [string, Opening])[],
    private readonly logger?: SpoolLogger,
  ) {}

  /**
   * Validates the module options and builds every connection's store, opening
   * none. `processorConnections` (called at module init, once the app's
   * providers exist) names the connections that run `@Processor` workers:
   * those wait for Redis at bootstrap unless waitForRedis says otherwise.
   */
  static create(options: unknown, logger: SpoolLogger, processorConnections: () => readonly string[]): SpoolConnections {
    validateModuleOptions(options);
    const entries: [string, SpoolConnectionOptions][] = [[DEFAULT_CONNECTION, options.connection], ...Object.entries(options.connections ?? {})];
    const stores = new Map<string, RedisStore>();
    const adapters: NatsNotify[] = [];
    const settings = new Map<string, { readonly notify?: NatsNotify; readonly waitForRedis?: boolean }>();
    for (const [name, c] of entries) {
      const { waitForRedis, ...rest } = c;
      const nats = options.notify?.nats;
      // Named connections get subjects (and hint keys) of their own: `<subjectPrefix>.<name>`.
      const subjectPrefix = name === DEFAULT_CONNECTION ? nats?.subjectPrefix : `${nats?.subjectPrefix ?? 'spool'}.${name}`;
      const notify = nats && new NatsNotify({ ...nats, logger, ...(subjectPrefix !== undefined && { subjectPrefix }) });
      if (notify) adapters.push(notify);
      stores.set(name, new RedisStore({ ...rest, logger, ...(notify && { notify }) } as RedisStoreConfig));
      settings.set(name, { ...(notify && { notify }), ...(waitForRedis !== undefined && { waitForRedis }) });
    }
    const plan = () => {
      const workers = new Set(processorConnections());
      return [...stores].map(([name, store]): [string, Opening] => {
        const { notify, waitForRedis } = settings.get(name) ?? {};
        const wait = waitForRedis === true ? 'waitForRedis: true' : waitForRedis === undefined && workers.has(name) ? 'it runs processors; waitForRedis: false fails the bootstrap instead' : undefined;
        return [name, { store, ...(notify && { notify }), ...(wait && { wait }) }];
      });
    };
    return new SpoolConnections(options, stores, adapters, plan, logger);
  }

  /**
   * Opens every connection, once (later calls wait for the same opening):
   * a connection with processors waits for Redis (logging while it waits),
   * one that only produces fails at once with RedisUnavailableError. A
   * failure closes what was opened before it fails the bootstrap.
   */
  connect(): Promise<void> {
    this.opening ??= this.open();
    return this.opening;
  }

  onModuleInit(): Promise<void> {
    return this.connect();
  }

  private async open(): Promise<void> {
    try {
      for (const [name, { store, notify, wait }] of this.plan()) {
        await (wait && store instanceof RedisStore && this.logger ? connectWaiting(store, name, this.logger, wait) : store.connect());
        // NATS down at bootstrap fails it with NatsUnavailableError, as Redis down does.
        await notify?.connect();
      }
    } catch (err) {
      await this.onApplicationShutdown();
      throw err;
    }
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
    const stores = new Map(names.map((name) => [name, makeStore(name)]));
    return new SpoolConnections(raw as QueueModuleOptions, stores, [], () => [...stores].map(([name, store]): [string, Opening] => [name, { store }]));
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
   * A bootstrap step failed (after the connections opened, or while they
   * may open): Nest will not close an app that never started, so close them
   * here and let the process exit with the error.
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
async function connectWaiting(store: RedisStore, name: string, logger: SpoolLogger, why: string): Promise<void> {
  const started = Date.now();
  const timer = setInterval(() => {
    logger.warn(`connection "${name}": still waiting for Redis after ${Math.round((Date.now() - started) / 1000)} s (${why})`);
  }, WAIT_LOG_MS);
  try {
    await store.connect({ wait: true });
  } finally {
    clearInterval(timer);
  }
  if (Date.now() - started > 1000) logger.log(`connection "${name}": Redis answered after ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
