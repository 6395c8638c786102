import { ErrorReply } from 'redis';
import { CommandTimeoutError, RedisUnavailableError } from './errors.js';

/**
 * An event listener, checked bivariantly (a method's parameter): Spool's
 * listeners take the arguments they know (`(err: Error) => void`), and
 * node-redis declares `(...args: any[]) => void`; a plain function type
 * would refuse one or the other.
 */
export type RedisEventListener = { listen(...args: unknown[]): void }['listen'];

/**
 * What Spool needs of a node-redis client. A client made by `createClient()`
 * fits; so does one with modules or scripts of its own, which is why this is
 * structural rather than node-redis's generic client type.
 */
export interface RedisClientLike {
  readonly isOpen: boolean;
  readonly isReady: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  duplicate(): RedisClientLike;
  sendCommand(args: readonly string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown>;
  unsubscribe(channel: string, listener?: (message: string, channel: string) => unknown): Promise<unknown>;
  on(event: string, listener: RedisEventListener): unknown;
  off(event: string, listener: RedisEventListener): unknown;
}

/**
 * Reconnect for ever, with capped exponential backoff and jitter.
 * NOTE: node-redis's default strategy gives up for good on a socket timeout,
 * which would leave workers dead after one slow moment; ours never gives up.
 */
export function reconnectDelay(retries: number): number {
  const base = Math.min(50 * 2 ** Math.min(retries, 10), 2000);
  return base + Math.floor(Math.random() * 100);
}

/** Socket settings of every client Spool makes (see spoolClientOptions), to merge TLS and an address into. */
export const SPOOL_SOCKET = { reconnectStrategy: reconnectDelay, connectTimeout: 5000, socketTimeout: undefined, keepAlive: true, noDelay: true } as const;

/**
 * The node-redis options of every client Spool makes (connections/open-client.ts), with `socket`
 * extended by `extra` (an address, TLS): the settings a job queue needs:
 * - endless reconnects with capped backoff (node-redis's default gives up on
 *   a socket timeout);
 * - no socket timeout and no node-redis command timeout: a subscriber
 *   connection idles by design, so a socket timeout only causes reconnect
 *   storms. NOTE: node-redis 6 gives every command a 5 s timeout by default,
 *   counted from when it is queued until it is written (not until its reply):
 *   behind a long pipeline (an addBulk of many batches, verify() of a big
 *   queue) healthy commands fail with TimeoutError, and a server that
 *   accepts a command but never answers is not caught. `timeout: 0` turns it
 *   off; the store bounds replies itself (commandTimeoutMs, reply-clock.ts),
 *   and dead peers are found by TCP keepalive and by the socket closing;
 * - no offline queue: a command issued while Redis is unreachable fails at
 *   once with RedisUnavailableError instead of waiting in memory without
 *   bound. Workers retry their writes themselves (persist), producers decide.
 */
export function spoolClientOptions<Extra extends object>(extra?: Extra): { socket: typeof SPOOL_SOCKET & Extra; disableOfflineQueue: true; commandOptions: { timeout: 0 } } {
  return { socket: { ...SPOOL_SOCKET, ...(extra as Extra) }, disableOfflineQueue: true, commandOptions: { timeout: 0 } };
}

/** The options of a node-redis client that matter here, read defensively (a client passed in may be anything RedisClientLike). */
/** Default command timeout of node-redis 6 when none is given. */
const NODE_REDIS_DEFAULT_COMMAND_TIMEOUT = 5000;

interface InspectableOptions {
  readonly socket?: { readonly socketTimeout?: unknown; readonly reconnectStrategy?: unknown };
  readonly commandOptions?: { readonly timeout?: unknown };
}

/**
 * Settings of a client you pass in that break a job queue, as sentences to
 * log: Spool does not change a client it does not own.
 */
export function clientOptionProblems(client: RedisClientLike): string[] {
  const options = (client as unknown as { readonly options?: InspectableOptions }).options;
  if (!options) return [];
  const problems: string[] = [];
  const socketTimeout = options.socket?.socketTimeout;
  if (typeof socketTimeout === 'number' && socketTimeout > 0) {
    problems.push(`socket.socketTimeout is ${socketTimeout} ms: idle subscriber connections will be dropped and reconnected; leave it unset`);
  }
  // The default applies when the client was made without commandOptions.timeout.
  const commandTimeout = options.commandOptions?.timeout ?? NODE_REDIS_DEFAULT_COMMAND_TIMEOUT;
  if (typeof commandTimeout === 'number' && commandTimeout > 0) {
    problems.push(`commandOptions.timeout is ${commandTimeout} ms: commands still queued behind a long pipeline fail with TimeoutError although Redis is healthy; set commandOptions: { timeout: 0 }`);
  }
  if (options.socket?.reconnectStrategy === false) {
    problems.push('socket.reconnectStrategy is false: after one dropped connection the client stays closed and workers stop; use a backoff function');
  }
  return problems;
}

/**
 * The client, with failures to reach Redis (a closed socket, the offline
 * queue turned off) turned into RedisUnavailableError naming the call, as
 * scripts already do; Redis's own error replies pass through unchanged.
 */
export function mappingUnavailable(client: RedisClientLike, what: string): RedisClientLike {
  return {
    get isOpen() {
      return client.isOpen;
    },
    get isReady() {
      return client.isReady;
    },
    connect: () => client.connect(),
    close: () => client.close(),
    destroy: () => client.destroy(),
    duplicate: () => client.duplicate(),
    sendCommand: async (args) => {
      try {
        return await client.sendCommand(args);
      } catch (err) {
        if (err instanceof ErrorReply) throw err;
        if (err instanceof CommandTimeoutError) throw err.about(what);
        throw new RedisUnavailableError(what, err);
      }
    },
    subscribe: (channel, listener) => client.subscribe(channel, listener),
    unsubscribe: (channel, listener) => client.unsubscribe(channel, listener),
    on: (event, listener) => client.on(event, listener),
    off: (event, listener) => client.off(event, listener),
  };
}
