import type { SpoolLogger } from '../logger.js';
import { CommandTimeoutError, RedisUnavailableError, StoreNotConnectedError } from './errors.js';
import { clientOptionProblems, type RedisClientLike } from './redis-client.js';
import type { ResolvedConnection } from './connections/options.js';
import { openClient } from './connections/open-client.js';
import type { ScriptRunner } from './script-runner.js';
import { checkServer } from './server-checks.js';
import { ClusterClient, masterClients } from './cluster-client.js';
import { boundedClient, type ReplyClock } from './reply-clock.js';

export type { RedisConnection } from './connections/options.js';

/** The same client with every command bounded by `clock` (commandTimeoutMs); a cluster's per node. */
export function withClock(client: RedisClientLike, clock: ReplyClock): RedisClientLike {
  return client instanceof ClusterClient ? client.bounded(clock) : boundedClient(client, clock);
}

/**
 * The Redis store's command connection and its life: open (once, or waiting
 * for Redis), check the server, preload the scripts, close what it opened.
 */
export class CommandConnection {
  readonly ownsClient: boolean;
  private client: RedisClientLike | undefined;
  private state: 'new' | 'connected' | 'closed' = 'new';
  private connecting: Promise<void> | undefined;
  /** The client connect() is opening, so close() can end a wait for Redis. */
  private opening: RedisClientLike | undefined;

  constructor(
    private readonly connection: ResolvedConnection,
    private readonly runner: ScriptRunner,
    private readonly logger: SpoolLogger,
    private readonly requireNoEviction: boolean,
    /** Told when an owned connection drops and when it is back (the store's outage log). */
    private readonly health: { lost(what: string): void; recovered(): void },
    /** Bounds every command of this connection (commandTimeoutMs); duplicates are not bounded. */
    readonly clock: ReplyClock,
  ) {
    this.ownsClient = connection.kind !== 'client';
  }

  /** The client is connected and answering (false during an outage). */
  get ready(): boolean {
    return this.client?.isReady === true;
  }

  get closed(): boolean {
    return this.state === 'closed';
  }

  /** Opens the connection (when owned) and checks the server; idempotent. */
  connect(wait: boolean): Promise<void> {
    if (this.state === 'connected') return Promise.resolve();
    if (this.state === 'closed') return Promise.reject(new StoreNotConnectedError('connect()'));
    this.connecting ??= (wait ? this.openRetrying() : this.open(false)).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** The connected client; throws a clear error before connect() or after close(). */
  get(what: string): RedisClientLike {
    if (this.state !== 'connected' || !this.client) throw new StoreNotConnectedError(what);
    return this.client;
  }

  /** Marks the connection closed and ends a pending connect(); `close()` then closes the client. */
  async stop(): Promise<void> {
    this.state = 'closed';
    if (this.connecting && this.ownsClient) {
      this.opening?.destroy();
      await this.connecting.catch(() => undefined);
    }
  }

  /** Closes the client when the store created it. */
  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client && this.ownsClient && client.isOpen) await client.close().catch(() => client.destroy());
  }

  /**
   * open(true) until it succeeds or the store is closed. NOTE: a plain
   * client's connect() rides out refused connections by itself, but through
   * Sentinel node-redis gives up after 16 rediscoveries (about 17 s) of a
   * master that is not there: waiting means trying again with a new client.
   */
  private async openRetrying(): Promise<void> {
    for (;;) {
      if (this.closed) throw new StoreNotConnectedError('connect()');
      try {
        return await this.open(true);
      } catch (err) {
        if (this.closed || !this.ownsClient || !(err instanceof RedisUnavailableError)) throw err;
        this.logger.warn(`${err.message}; trying again`);
        await new Promise((resolve) => setTimeout(resolve, RETRY_OPEN_MS));
      }
    }
  }

  private async open(wait: boolean): Promise<void> {
    const raw = openClient(this.connection);
    for (const problem of clientOptionProblems(raw)) this.logger.warn(`RedisStore client: ${problem}`);
    const client = withClock(raw, this.clock);
    const onError = (err: Error): void => this.health.lost(`connection lost: ${err.message}`);
    const onReady = (): void => this.health.recovered();
    if (!client.isOpen) {
      this.opening = client;
      try {
        await (wait ? this.openWaiting(client) : openOnce(client, this.clock.timeoutMs));
      } catch (err) {
        if (this.ownsClient) client.destroy();
        throw new RedisUnavailableError('RedisStore connect()', err);
      } finally {
        this.opening = undefined;
      }
    }
    if (this.ownsClient) {
      client.on('error', onError);
      client.on('ready', onReady);
    }
    try {
      // On a cluster: every master (a master promoted later loads each script on its first NOSCRIPT).
      const masters = await masterClients(client).catch(nameTimeout);
      for (const master of masters) await checkServer(master, this.logger, { requireNoEviction: this.requireNoEviction }).catch(nameTimeout);
      // Not fatal: a store connects under OOM too (SCRIPT LOAD may be refused), and calls fall back to EVAL.
      await Promise.all(masters.map((master) => this.runner.preload(master)))
        .catch((err: unknown) => this.logger.warn(`RedisStore: could not preload scripts (${String(err)}); they load on first use`));
    } catch (err) {
      if (this.ownsClient) {
        client.off('error', onError);
        client.destroy();
      }
      throw err;
    }
    if (this.state === 'closed') {
      if (this.ownsClient) client.destroy();
      throw new StoreNotConnectedError('connect()');
    }
    this.client = client;
    this.state = 'connected';
  }

  /** Connects, riding out refused connections with the client's own capped backoff. */
  private async openWaiting(client: RedisClientLike): Promise<void> {
    let told = false;
    const onError = (err: Error): void => {
      if (!told) this.logger.warn(`Redis is unreachable (${err.message}); waiting for it to come up`);
      told = true;
    };
    client.on('error', onError);
    try {
      await client.connect();
    } finally {
      client.off('error', onError);
    }
  }
}

/** The pause between two waiting connects whose client gave up (Sentinel). */
const RETRY_OPEN_MS = 1000;

/** A server check that met a silent server names connect(), not the command it sent. */
function nameTimeout(err: unknown): never {
  throw err instanceof CommandTimeoutError ? err.about('RedisStore connect() (server checks)') : err;
}

/**
 * One attempt to connect: the first connection error fails the call (node-redis
 * would otherwise retry for ever inside connect()), and so does no connection
 * within `timeoutMs` (commandTimeoutMs): a server that accepts the socket but
 * answers nothing (a hung or SIGSTOPped process) would hold the handshake for
 * ever, and through Sentinel a master that is down or not started yet is
 * retried by node-redis without an `error` event (16 rediscoveries a second
 * apart before its connect() gives up).
 */
export async function openOnce(client: RedisClientLike, timeoutMs = 0): Promise<void> {
  let onError: ((err: Error) => void) | undefined;
  let timer: NodeJS.Timeout | undefined;
  const refused = new Promise<never>((_, reject) => {
    onError = reject;
    client.on('error', onError);
    if (timeoutMs > 0) {
      const silent = `no connection within ${timeoutMs} ms (commandTimeoutMs): the server (through Sentinel, the master it names) refused, or accepted and answered nothing`;
      timer = setTimeout(() => reject(new Error(silent)), timeoutMs);
    }
  });
  const connecting = client.connect();
  connecting.catch(() => undefined);
  try {
    await Promise.race([connecting, refused]);
  } finally {
    clearTimeout(timer);
    client.off('error', onError!);
  }
}
