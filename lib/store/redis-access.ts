import type { QueueKeys } from './keys.js';
import type { RedisClientLike } from './redis-client.js';
import type { RedisFlows } from './redis-flows.js';

/**
 * @internal Raw access to a RedisStore's command connection and key names.
 * Not part of the public API and exported from no entry point: the store's
 * own helpers and the tests (test/helpers/redis-access.ts) use it; the CLI,
 * the dashboard and applications go through the Store's methods.
 */
export interface RedisAccess {
  /** The command connection; throws a clear error before connect() or after disconnect(). */
  command(what: string): RedisClientLike;
  keysOf(queue: string): QueueKeys;
  /** The flow writes, for crash tests that run the outbox and flow sweeps one at a time. */
  readonly flows: RedisFlows;
}

const granted = new WeakMap<object, RedisAccess>();

/** @internal Called by RedisStore's constructor. */
export function grantRedisAccess(store: object, access: RedisAccess): void {
  granted.set(store, access);
}

/** @internal The raw access of a RedisStore. */
export function redisAccess(store: object): RedisAccess {
  const access = granted.get(store);
  if (!access) throw new TypeError('redisAccess() takes a RedisStore');
  return access;
}
