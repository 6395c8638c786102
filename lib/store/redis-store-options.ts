import { InvalidArgumentError } from '../common/errors.js';
import { assertPlainObject, checkOptions } from '../common/validation.js';
import type { SpoolLogger } from '../logger.js';
import type { NotifyAdapter } from '../notify/notify-adapter.js';

export interface RedisStoreOptions {
  /** First part of every key's hash tag: `{prefix:queue}`. Default `spool`. */
  readonly prefix?: string;
  readonly logger?: SpoolLogger;
  /** Refuse to connect (UnsupportedServerError) when maxmemory-policy is not noeviction, instead of warning. Default false. */
  readonly requireNoEviction?: boolean;
  /** How long scripts refused with LOADING / BUSY / TRYAGAIN / MASTERDOWN are retried before failing, in ms. Default 10,000. */
  readonly transientRetryMs?: number;
  /**
   * How workers hear of new work, lost leases and finished jobs. Default:
   * Redis pub/sub on one subscriber connection (a duplicate of the command
   * connection), opened on first use and closed by disconnect(). An adapter
   * you pass stays yours to close.
   */
  readonly notify?: NotifyAdapter;
}

export interface ConnectOptions {
  /**
   * false (default, for producers): fail at once with RedisUnavailableError
   * when Redis cannot be reached. true (for workers): keep trying, with capped
   * backoff, until Redis answers; warnings are logged meanwhile.
   */
  readonly wait?: boolean;
}

const STORE_OPTIONS: readonly (keyof RedisStoreOptions)[] = ['prefix', 'logger', 'requireNoEviction', 'transientRetryMs', 'notify'];

/** Typos and wrong shapes fail at construction, like Queue and Worker options, naming the field. */
export function checkStoreArguments(connection: unknown, options: unknown): void {
  assertPlainObject(connection, 'RedisStore connection');
  const url = 'url' in connection ? connection.url : undefined;
  if (!('client' in connection) && typeof url !== 'string') {
    throw new InvalidArgumentError('RedisStore connection', 'needs a url or a client', "pass { url: 'redis://host:6379' } or { client } (a node-redis client)");
  }
  checkOptions<RedisStoreOptions>(options, STORE_OPTIONS, 'RedisStore options');
}

