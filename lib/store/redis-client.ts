import { createClient } from 'redis';

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
  on(event: string, listener: (...args: never[]) => void): unknown;
  off(event: string, listener: (...args: never[]) => void): unknown;
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

/**
 * A client for a URL with the settings a job queue needs: endless reconnects,
 * no socket timeout (pub/sub connections are idle by design; a timeout there
 * only causes reconnect storms), and the offline queue kept so a command
 * issued during a blip runs once the connection is back.
 */
export function createSpoolClient(url: string): RedisClientLike {
  return createClient({
    url,
    socket: { reconnectStrategy: reconnectDelay, connectTimeout: 5000 },
    disableOfflineQueue: false,
  }) as unknown as RedisClientLike;
}
