import { InvalidArgumentError } from '../common/errors.js';
import { assertKnownKeys, assertPlainObject, describe } from '../common/validation.js';
import type { SpoolLogger } from '../logger.js';
import type { NotifyAdapter } from '../notify/notify-adapter.js';
import type { RedisConnection } from './command-connection.js';
import { PREFIX_PATTERN, PREFIX_RULE } from './keys.js';
import type { RedisClientLike } from './redis-client.js';

export type { RedisConnection } from './command-connection.js';

export interface ConnectOptions {
  /**
   * false (default, for producers): fail at once with RedisUnavailableError
   * when Redis cannot be reached. true (for workers): keep trying, with capped
   * backoff, until Redis answers; warnings are logged meanwhile.
   */
  readonly wait?: boolean;
}

export interface RedisStoreOptions {
  /** First part of every key's hash tag: `{prefix:queue}`. Default `spool`. */
  readonly prefix?: string;
  readonly logger?: SpoolLogger;
  /** Refuse to connect (UnsupportedServerError) when maxmemory-policy is not noeviction, instead of warning. Default false. */
  readonly requireNoEviction?: boolean;
  /** How long scripts refused with LOADING / BUSY / TRYAGAIN / MASTERDOWN are retried before failing, in ms. Default 10,000. */
  readonly transientRetryMs?: number;
  /** While Redis is unreachable, at most one summary line per this many ms (after the one error line). Default 30,000. */
  readonly outageLogInterval?: number;
  /**
   * How workers hear of new work, lost leases and finished jobs. Default:
   * Redis pub/sub on one subscriber connection (a duplicate of the command
   * connection), opened on first use and closed by disconnect(). An adapter
   * you pass stays yours to close.
   */
  readonly notify?: NotifyAdapter;
}

/**
 * One object, the same shape as the Nest module's `connection`:
 * `new RedisStore({ url, prefix })`. The two-argument form
 * `new RedisStore({ url }, { prefix })` means exactly the same.
 */
export type RedisStoreConfig = RedisConnection & RedisStoreOptions;

/** Keys of the connection part. */
export const CONNECTION_KEYS = ['url', 'client'] as const;
/** Keys of the options part, also accepted in the one-object form. */
export const STORE_OPTION_KEYS = ['prefix', 'logger', 'requireNoEviction', 'transientRetryMs', 'outageLogInterval', 'notify'] as const;

export interface ResolvedStoreConfig {
  readonly connection: RedisConnection;
  readonly prefix: string;
  readonly logger?: SpoolLogger;
  readonly requireNoEviction: boolean;
  readonly transientRetryMs?: number;
  readonly outageLogInterval: number;
  readonly notify?: NotifyAdapter;
}

/**
 * Merges the one-object and the two-argument forms into one meaning and
 * refuses what would otherwise be ignored: unknown keys (with a
 * did-you-mean), a key given in both arguments, url and client together.
 */
export function resolveStoreConfig(first: unknown, second: unknown = {}): ResolvedStoreConfig {
  assertPlainObject(first, 'RedisStore connection');
  assertPlainObject(second, 'RedisStore options');
  assertKnownKeys(first, [...CONNECTION_KEYS, ...STORE_OPTION_KEYS], 'RedisStore connection');
  assertKnownKeys(second, STORE_OPTION_KEYS, 'RedisStore options');
  for (const key of Object.keys(second)) {
    if (key in first && first[key] !== second[key]) {
      throw new InvalidArgumentError(`RedisStore options.${key}`, `is also given in the connection object, with another value`, `pass it once: new RedisStore({ url, ${key} })`);
    }
  }
  const merged: Record<string, unknown> = { ...first, ...second };
  const hasUrl = merged.url !== undefined;
  const hasClient = merged.client !== undefined;
  if (hasUrl && hasClient) throw new InvalidArgumentError('RedisStore connection', 'has both url and client', 'pass one of them');
  if (!hasClient && typeof merged.url !== 'string') {
    throw new InvalidArgumentError('RedisStore connection', hasUrl ? `url must be a string, got ${describe(merged.url)}` : 'needs a url or a client', "pass { url: 'redis://host:6379' } or { client } (a node-redis client)");
  }
  if (hasClient && (typeof merged.client !== 'object' || merged.client === null)) {
    throw new InvalidArgumentError('RedisStore connection.client', `must be a node-redis client, got ${describe(merged.client)}`);
  }
  const prefix = merged.prefix ?? 'spool';
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new InvalidArgumentError('RedisStore options.prefix', `"${String(prefix)}" is invalid`, `use ${PREFIX_RULE}`);
  }
  if (merged.requireNoEviction !== undefined && typeof merged.requireNoEviction !== 'boolean') {
    throw new InvalidArgumentError('RedisStore options.requireNoEviction', `must be true or false, got ${describe(merged.requireNoEviction)}`);
  }
  const retry = merged.transientRetryMs;
  if (retry !== undefined && (typeof retry !== 'number' || !Number.isInteger(retry) || retry < 0)) {
    throw new InvalidArgumentError('RedisStore options.transientRetryMs', `must be a whole number of ms >= 0, got ${describe(retry)}`);
  }
  const interval = merged.outageLogInterval ?? 30_000;
  if (typeof interval !== 'number' || !Number.isInteger(interval) || interval < 1) {
    throw new InvalidArgumentError('RedisStore options.outageLogInterval', `must be a whole number of ms >= 1, got ${describe(interval)}`);
  }
  const logger = merged.logger as SpoolLogger | undefined;
  const notify = merged.notify as NotifyAdapter | undefined;
  return {
    connection: hasClient ? { client: merged.client as RedisClientLike } : { url: merged.url as string },
    prefix,
    ...(logger !== undefined && { logger }),
    requireNoEviction: merged.requireNoEviction === true,
    ...(retry !== undefined && { transientRetryMs: retry }),
    outageLogInterval: interval,
    ...(notify !== undefined && { notify }),
  };
}
