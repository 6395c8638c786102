import { ErrorReply } from 'redis';
import { CommandTimeoutError } from './errors.js';
import type { RedisClientLike } from './redis-client.js';

/** Default commandTimeoutMs: how long a call waits for a connection that answers nothing. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 5000;

/**
 * Spool's own bound on every command of the store's command connection
 * (commandTimeoutMs). node-redis 6's `commandOptions.timeout` counts only
 * until a command is written, so a server that stops answering (SIGSTOP, a
 * link that drops packets without a reset) would leave calls waiting until
 * TCP gives up, minutes later.
 *
 * A call fails with CommandTimeoutError once its connection has given no
 * reply for `timeoutMs` while the call waited: counted from the later of
 * the call's start and the connection's last reply, so a long pipeline that
 * keeps answering (a big addBulk, verify() of 200,000 jobs) is never cut, and
 * a silent server fails every call within about `timeoutMs`. Connections are
 * told apart (each node of a cluster is one), so one silent master does not
 * hold up, nor hide behind, the others.
 *
 * The connection is not reset after a timeout: node-redis matches replies to
 * the commands it wrote in order, so a late reply settles the abandoned
 * command's own promise (ignored here) and can never be taken for another
 * command's. Dropping the socket would instead fail the other calls in
 * flight with an outcome just as unknown, and turn a slow moment into
 * reconnect storms; a socket that is really dead is found by TCP and
 * reconnected by node-redis as before.
 */
export class ReplyClock {
  private readonly lastReply = new WeakMap<object, number>();
  private anyReply = 0;

  constructor(readonly timeoutMs: number) {}

  /** A reply (or an error reply: the server answered) came on `connection`. */
  answered(connection: object): void {
    const now = performance.now();
    this.lastReply.set(connection, now);
    this.anyReply = now;
  }

  /** Some connection answered after `since` (a performance.now() time): the outage log's "Redis is back". */
  answeredSince(since: number): boolean {
    return this.anyReply > since;
  }

  /**
   * `reply`, or CommandTimeoutError once `connection()` (the connection the
   * call waits on now; undefined while it is still being chosen) gave no
   * reply for timeoutMs, plus `extraMs` for a command that blocks on purpose
   * (WAIT). `onTimeout` runs when the call is given up.
   */
  bound<T>(what: string, connection: () => object | undefined, reply: Promise<T>, extraMs = 0, onTimeout?: () => void): Promise<T> {
    const started = performance.now() + extraMs;
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let again: NodeJS.Immediate | undefined;
      let looked = false;
      const check = (): void => {
        const on = connection();
        const since = Math.max(started, (on && this.lastReply.get(on)) ?? 0);
        const silent = performance.now() - since;
        if (silent < this.timeoutMs) {
          looked = false;
          timer = setTimeout(check, Math.max(1, this.timeoutMs - silent));
          return;
        }
        // NOTE: timers run before the event loop reads sockets, so after a long busy stretch of this
        // process (a big pipeline being built) replies may wait unread: look once more after the I/O.
        if (!looked) {
          looked = true;
          again = setImmediate(check);
          return;
        }
        onTimeout?.();
        reject(new CommandTimeoutError(what, this.timeoutMs));
      };
      timer = setTimeout(check, this.timeoutMs + extraMs);
      const stop = (): void => {
        clearTimeout(timer);
        clearImmediate(again);
      };
      reply.then(
        (value) => {
          stop();
          resolve(value);
        },
        (err: unknown) => {
          stop();
          reject(err);
        },
      );
    });
  }

  /** `client.sendCommand(args)` noting its reply, bounded; WAIT gets its own timeout on top. */
  send(client: RedisClientLike, args: readonly string[], send: () => Promise<unknown> = () => client.sendCommand(args)): Promise<unknown> {
    return this.bound(args[0] ?? 'command', () => client, this.noting(client, send()), waitAllowance(args));
  }

  /** `reply`, noting on `connection` that it answered (an error reply is an answer too). */
  noting<T>(connection: object, reply: Promise<T>): Promise<T> {
    return reply.then(
      (value) => {
        this.answered(connection);
        return value;
      },
      (err: unknown) => {
        if (err instanceof ErrorReply) this.answered(connection);
        throw err;
      },
    );
  }
}

/** WAIT numreplicas timeout blocks its connection for up to `timeout` ms on purpose. */
export function waitAllowance(args: readonly string[]): number {
  return args[0]?.toUpperCase() === 'WAIT' ? Number(args[2]) || 0 : 0;
}

/**
 * A single-node client whose commands are bounded by `clock`. Its
 * duplicates (the subscriber, event readers) are not: they block on purpose.
 */
export function boundedClient(client: RedisClientLike, clock: ReplyClock): RedisClientLike {
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
    sendCommand: (args) => clock.send(client, args),
    subscribe: (channel, listener) => client.subscribe(channel, listener),
    unsubscribe: (channel, listener) => client.unsubscribe(channel, listener),
    on: (event, listener) => client.on(event, listener),
    off: (event, listener) => client.off(event, listener),
  };
}
