import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type { SpoolLogger } from '../logger.js';
import { NatsNotify } from '../notify/nats-notify.js';
import { RedisStore, type RedisStoreConfig } from '../store/redis-store.js';
import type { Store } from '../store/store.js';
import { PostgresStore } from '../postgres/postgres-store.js';
import { SpoolBootstrapError } from './errors.js';
import { validateModuleOptions, type QueueModuleOptions, type SpoolConnectionOptions } from './module-options.js';
import { prefixedName, type ConnectionRef } from './connection-ref.js';
import { DEFAULT_CONNECTION, queueKey } from './tokens.js';

/** How one connection is opened: its store, and whether the bootstrap waits for Redis. */
interface Opening {
  readonly store: Store;
  readonly notify?: NatsNotify;
  /** Wait for Redis at bootstrap, and why (for the "still waiting" lines); undefined: fail at once. */
  readonly wait?: string;
}

/** A built connection: its store, its notify adapter (notify.nats) and its own waitForRedis. */
interface Built {
  readonly store: Store;
  readonly notify?: NatsNotify;
  readonly waitForRedis?: boolean;
  /** The options it was built from (a prefixed twin copies them); none for an in-process store. */
  readonly spec?: SpoolConnectionOptions;
}

/** A queue a `@Processor` runs, as it names it. */
export interface ProcessorQueue {
  readonly queue: string;
  readonly connection: string;
}

/** Module-wide settings: forRoot's options, or none when the app registers queues with their own connection only. */
export type SpoolRootOptions = Partial<QueueModuleOptions>;

/**
 * One store per connection, built (and its options checked) when the module
 * is created but opened only in the lifecycle, at module init: a bootstrap
 * that fails before it (a provider whose dependency is missing) leaves
 * nothing open, and the process can exit with the error. The module is
 * global, so Nest runs its onModuleInit before that of the app's own
 * modules: any provider of them can add jobs from its onModuleInit.
 * Disconnected at application shutdown, after every worker drained
 * (workers close earlier, in beforeApplicationShutdown).
 *
 * Besides forRoot's named connections, registrations add their own
 * (connection-ref.ts): an inline connection (a generated name) and a
 * queue's own prefix (its connection's twin under that prefix).
 */
export class SpoolConnections implements OnModuleInit, OnApplicationShutdown {
  private opening: Promise<void> | undefined;
  /** Which store each registered queue uses, by its registry key (for waitForRedis of processor queues). */
  private readonly routes = new Map<string, string>();
  /** Connections open (or opening): a late one (ensureOpen) is opened once. */
  private readonly openedNames = new Set<string>();

  private constructor(
    readonly options: SpoolRootOptions,
    private readonly built: Map<string, Built>,
    /** Builds the store of a connection a registration adds. */
    private readonly build: (name: string, spec: SpoolConnectionOptions | undefined, base: string | undefined) => Built,
    private readonly processorQueues: () => readonly ProcessorQueue[],
    private readonly logger?: SpoolLogger,
    /** True without QueueModule.forRoot: no default connection, registrations bring theirs. */
    readonly rootless = false,
  ) {}

  /**
   * Validates the module options and builds every connection's store, opening
   * none. `processorQueues` (called at module init, once the app's providers
   * exist) gives the queues `@Processor` classes run: their connections wait for Redis at bootstrap unless
   * waitForRedis says otherwise. `options` undefined: no forRoot in the app.
   */
  static create(options: unknown, logger: SpoolLogger, processorQueues: () => readonly ProcessorQueue[]): SpoolConnections {
    const rootless = options === undefined;
    if (!rootless) validateModuleOptions(options);
    const root: SpoolRootOptions = rootless ? {} : (options as QueueModuleOptions);
    const build = (name: string, spec: SpoolConnectionOptions | undefined): Built => buildConnection(name, spec!, root, logger);
    const entries: [string, SpoolConnectionOptions][] = rootless ? [] : [[DEFAULT_CONNECTION, root.connection!], ...Object.entries(root.connections ?? {})];
    const built = new Map(entries.map(([name, c]): [string, Built] => [name, build(name, c)]));
    return new SpoolConnections(root, built, build, processorQueues, logger, rootless);
  }

  /**
   * Stores that live in the process (the testing module): every connection
   * gets `makeStore(name)` and nothing reaches for Redis. Connection settings
   * (url, client) are not checked; every other option is, as in production.
   * A registration's inline connection is the default connection's store,
   * a queue's own prefix its connection's store (QueueTesting finds both
   * queues by name alone).
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
    const built = new Map(names.map((name): [string, Built] => [name, { store: makeStore(name) }]));
    const build = (_name: string, _spec: SpoolConnectionOptions | undefined, base: string | undefined): Built => ({ store: makeStore(base ?? DEFAULT_CONNECTION) });
    return new SpoolConnections(raw, built, build, () => []);
  }

  /**
   * The connection a registration uses, by name: forRoot's own, or one it
   * brings (an inline connection, or a prefix of its own over either), built
   * on first use. `route` (a registry key) records which queue uses it.
   */
  attach(ref: ConnectionRef, prefix: string | undefined, route: string, at: string): string {
    let name = ref.name;
    if (ref.inline && !this.built.has(name)) this.built.set(name, this.build(name, ref.inline, undefined));
    if (!ref.inline) this.get(name, at);
    if (prefix !== undefined) {
      const twin = prefixedName(name, prefix);
      if (!this.built.has(twin)) {
        const base = this.built.get(name)!;
        this.built.set(twin, this.build(twin, base.spec && { ...base.spec, prefix }, name));
      }
      name = twin;
    }
    this.routes.set(route, name);
    return name;
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

  /** A connection a lazily loaded module brought after the others opened: opened now. */
  async ensureOpen(name: string): Promise<void> {
    if (!this.opening) return;
    await this.opening;
    const b = this.built.get(name);
    if (b && !this.openedNames.has(name)) {
      this.openedNames.add(name);
      await b.store.connect();
      await b.notify?.connect();
    }
  }

  private plan(): (readonly [string, Opening])[] {
    const workers = new Set(this.processorQueues().map(({ queue, connection }) => this.routes.get(queueKey(queue, connection)) ?? connection));
    return [...this.built].map(([name, { store, notify, waitForRedis }]): [string, Opening] => {
      const wait = waitForRedis === true ? 'waitForRedis: true' : waitForRedis === undefined && workers.has(name) ? 'it runs processors; waitForRedis: false fails the bootstrap instead' : undefined;
      return [name, { store, ...(notify && { notify }), ...(wait && { wait }) }];
    });
  }

  private async open(): Promise<void> {
    try {
      for (const [name, { store, notify, wait }] of this.plan()) {
        this.openedNames.add(name);
        await (wait && store instanceof RedisStore && this.logger ? connectWaiting(store, name, this.logger, wait) : store.connect());
        // NATS down at bootstrap fails it with NatsUnavailableError, as Redis down does.
        await notify?.connect();
      }
    } catch (err) {
      await this.onApplicationShutdown();
      throw err;
    }
  }

  get names(): string[] {
    return [...this.built.keys()];
  }

  /** Every built connection with the options it was built from (forRoot's first, then registrations'), for the relay host. */
  specs(): { readonly name: string; readonly store: Store; readonly spec: SpoolConnectionOptions }[] {
    return [...this.built].flatMap(([name, b]) => (b.spec ? [{ name, store: b.store, spec: b.spec }] : []));
  }

  get(name: string = DEFAULT_CONNECTION, at = `connection "${name}"`): Store {
    const built = this.built.get(name);
    if (!built) {
      if (this.rootless && name === DEFAULT_CONNECTION) {
        throw new SpoolBootstrapError(at, 'needs a connection, and the app has no QueueModule.forRoot()', "import QueueModule.forRoot({ connection: { url } }), or give the registration its own: registerQueue({ name, connection: { url } })");
      }
      throw new SpoolBootstrapError(`connection "${name}"`, 'is not configured', `add it to QueueModule.forRoot({ connections: { ${name}: { url } } }); configured: ${this.names.join(', ') || 'none'}`);
    }
    return built.store;
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
    const all = [...this.built.values()];
    await Promise.allSettled([...new Set(all.map((b) => b.store))].map((s) => s.disconnect()));
    await Promise.allSettled(all.flatMap((b) => (b.notify ? [b.notify.close()] : [])));
  }
}

/** One connection's store (and NATS adapter, with notify.nats), from its options and the module's. */
function buildConnection(name: string, spec: SpoolConnectionOptions, root: SpoolRootOptions, logger: SpoolLogger): Built {
  // outboxRelay is the module's (outbox-relay-host.ts), not the store's.
  const { waitForRedis, outboxRelay: _relay, ...rest } = spec as SpoolConnectionOptions & { outboxRelay?: unknown };
  const nats = root.notify?.nats;
  // Connections other than the default get subjects (and hint keys) of their own: `<subjectPrefix>.<name>`.
  const subject = name.replace(/[^A-Za-z0-9_-]/g, '_');
  const subjectPrefix = name === DEFAULT_CONNECTION ? nats?.subjectPrefix : `${nats?.subjectPrefix ?? 'spool'}.${subject}`;
  const notify = nats && new NatsNotify({ ...nats, logger, ...(subjectPrefix !== undefined && { subjectPrefix }) });
  // Every shape the module accepts (url, client, cluster, host/port/tls, sentinel) is one the store takes.
  const store =
    'postgres' in rest && rest.postgres
      ? new PostgresStore({ ...rest.postgres, ...(notify && { notify }) })
      : new RedisStore({ ...rest, logger, ...(notify && { notify }) } as RedisStoreConfig);
  return { store, spec, ...(notify && { notify }), ...(waitForRedis !== undefined && { waitForRedis }) };
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
