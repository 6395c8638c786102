import { InvalidArgumentError, UnknownOptionError } from '../common/errors.js';
import { CONNECTION_HINTS } from '../common/option-hints.js';
import { assertPlainObject, describe, unknownKeys } from '../common/validation.js';
import type { SpoolLogger } from '../logger.js';
import type { NotifyAdapter } from '../notify/notify-adapter.js';
import { CONNECTION_KEYS, resolveConnection, type RedisConnection, type ResolvedConnection } from './connections/options.js';
import { PREFIX_PATTERN, PREFIX_RULE } from './keys.js';
import { DEFAULT_COMMAND_TIMEOUT_MS } from './reply-clock.js';
import type { OutboxWriter } from './transaction.js';

export type { RedisConnection } from './connections/options.js';
export { CONNECTION_KEYS };

/** How `connect()` behaves when Redis cannot be reached yet. */
export interface ConnectOptions {
  /**
   * false (default, for producers): fail at once with RedisUnavailableError
   * when Redis cannot be reached. true (for workers): keep trying, with capped
   * backoff, until Redis answers; warnings are logged meanwhile.
   */
  readonly wait?: boolean;
}

/** Options of `new RedisStore(...)` besides the connection: key prefix, logger, server checks, durability and timeouts. */
export interface RedisStoreOptions {
  /** First part of every key's hash tag: `{prefix:queue}`. Default `spool`. */
  readonly prefix?: string;
  readonly logger?: SpoolLogger;
  /** Refuse to connect (UnsupportedServerError) when maxmemory-policy is not noeviction, or cannot be read (an ACL denies INFO and CONFIG), instead of warning. Default false. */
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
  /**
   * 'async' (default): a write is acknowledged once its master has it; Redis
   * replicates afterwards, so a master that dies in between can take it along.
   * 'replicated': writes a caller is acknowledged for (add, addBulk, flow
   * adds, complete, fail, cancel) also WAIT until a replica has them (or
   * `replicationTimeoutMs` passes); see docs/operations/cluster.md.
   */
  readonly durability?: Durability;
  /** With durability 'replicated': how long one WAIT lasts, in ms. Default 1,000. */
  readonly replicationTimeoutMs?: number;
  /**
   * How long a call waits while Redis gives no reply, in ms: then it rejects
   * with CommandTimeoutError (retryable; the command may or may not have run).
   * Counted from the call's start or the connection's last reply, whichever
   * is later, so a long pipeline that keeps answering is not cut. Workers'
   * blocking reads (the subscriber, QueueEvents' XREAD) are not bounded.
   * A connect() that does not wait for Redis is bounded by it too.
   * Default 5,000 (plus replicationTimeoutMs with durability 'replicated':
   * commands queued behind a WAIT wait that long too).
   */
  readonly commandTimeoutMs?: number;
  /**
   * Transactional enqueue on Redis: `queue.add(name, data, { tx })` writes the
   * job to this outbox in the caller's PostgreSQL transaction (an `Outbox` of
   * `spool/outbox`), and an `OutboxRelay` moves committed rows to Redis.
   * Without it, `{ tx }` is refused (TransactionalEnqueueUnsupportedError).
   */
  readonly outbox?: OutboxWriter;
}

/** When a write counts as done: `async` once the master has it (Redis's default), `replicated` once a replica confirmed it too (WAIT). */
export type Durability = 'async' | 'replicated';

/**
 * One object, the same shape as the Nest module's `connection`:
 * `new RedisStore({ url, prefix })`. The two-argument form
 * `new RedisStore({ url }, { prefix })` means exactly the same.
 */
export type RedisStoreConfig = RedisConnection & RedisStoreOptions;

/** Keys of the options part, also accepted in the one-object form. */
export const STORE_OPTION_KEYS = ['prefix', 'logger', 'requireNoEviction', 'transientRetryMs', 'outageLogInterval', 'notify', 'durability', 'replicationTimeoutMs', 'commandTimeoutMs', 'outbox'] as const;

export interface ResolvedStoreConfig {
  readonly connection: ResolvedConnection;
  readonly prefix: string;
  readonly logger?: SpoolLogger;
  readonly requireNoEviction: boolean;
  readonly transientRetryMs?: number;
  readonly outageLogInterval: number;
  readonly notify?: NotifyAdapter;
  readonly durability: Durability;
  readonly replicationTimeoutMs: number;
  readonly commandTimeoutMs: number;
  readonly outbox?: OutboxWriter;
}

/**
 * Merges the one-object and the two-argument forms into one meaning and
 * refuses what would otherwise be ignored: unknown keys (with a
 * did-you-mean), a key given in both arguments, url and client together.
 */
export function resolveStoreConfig(first: unknown, second: unknown = {}): ResolvedStoreConfig {
  assertPlainObject(first, 'RedisStore connection');
  const proto: unknown = Object.getPrototypeOf(first);
  if (proto !== Object.prototype && proto !== null) {
    // new RedisStore(client) or new RedisStore(otherStore): an instance where the connection object belongs.
    throw new InvalidArgumentError('RedisStore connection', `must be an object { url }, { cluster } or { client }, got ${describe(first)}`, 'a node-redis client of your own goes in { client }');
  }
  assertPlainObject(second, 'RedisStore options');
  const unknown = [
    ...unknownKeys(first, [...CONNECTION_KEYS, ...STORE_OPTION_KEYS], 'RedisStore connection', CONNECTION_HINTS),
    ...unknownKeys(second, STORE_OPTION_KEYS, 'RedisStore options', CONNECTION_HINTS),
  ];
  if (unknown.length > 0) throw new UnknownOptionError(unknown);
  for (const key of Object.keys(second)) {
    if (key in first && first[key] !== second[key]) {
      throw new InvalidArgumentError(`RedisStore options.${key}`, `is also given in the connection object, with another value`, `pass it once: new RedisStore({ url, ${key} })`);
    }
  }
  const merged: Record<string, unknown> = { ...first, ...second };
  const connection = resolveConnection(merged, 'RedisStore connection');
  const prefix = merged.prefix ?? 'spool';
  if (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix)) {
    throw new InvalidArgumentError('RedisStore options.prefix', `${describe(prefix)} is invalid`, `use ${PREFIX_RULE}`);
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
  const durability = merged.durability ?? 'async';
  if (durability !== 'async' && durability !== 'replicated') {
    throw new InvalidArgumentError('RedisStore options.durability', `must be 'async' or 'replicated', got ${describe(durability)}`);
  }
  const replicationTimeoutMs = merged.replicationTimeoutMs ?? 1000;
  if (typeof replicationTimeoutMs !== 'number' || !Number.isInteger(replicationTimeoutMs) || replicationTimeoutMs < 1) {
    throw new InvalidArgumentError('RedisStore options.replicationTimeoutMs', `must be a whole number of ms >= 1, got ${describe(replicationTimeoutMs)}`);
  }
  const commandTimeoutMs = merged.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS + (durability === 'replicated' ? replicationTimeoutMs : 0);
  if (typeof commandTimeoutMs !== 'number' || !Number.isInteger(commandTimeoutMs) || commandTimeoutMs < 1) {
    throw new InvalidArgumentError('RedisStore options.commandTimeoutMs', `must be a whole number of ms >= 1, got ${describe(commandTimeoutMs)}`);
  }
  if (durability === 'replicated' && commandTimeoutMs <= replicationTimeoutMs) {
    throw new InvalidArgumentError(
      'RedisStore options.commandTimeoutMs',
      `(${commandTimeoutMs} ms) must be above replicationTimeoutMs (${replicationTimeoutMs} ms): a WAIT holds its connection that long, and the commands queued behind it would time out`,
      `raise commandTimeoutMs (default ${DEFAULT_COMMAND_TIMEOUT_MS} + replicationTimeoutMs) or lower replicationTimeoutMs`,
    );
  }
  const outbox = merged.outbox;
  if (outbox !== undefined && (typeof outbox !== 'object' || outbox === null || typeof (outbox as { write?: unknown }).write !== 'function')) {
    throw new InvalidArgumentError('RedisStore options.outbox', `must be an Outbox (spool/outbox), got ${describe(outbox)}`, 'pass new Outbox({ connectionString }) or leave it out');
  }
  const logger = merged.logger as SpoolLogger | undefined;
  const notify = merged.notify as NotifyAdapter | undefined;
  return {
    connection,
    prefix,
    ...(logger !== undefined && { logger }),
    requireNoEviction: merged.requireNoEviction === true,
    ...(retry !== undefined && { transientRetryMs: retry }),
    outageLogInterval: interval,
    ...(notify !== undefined && { notify }),
    durability,
    replicationTimeoutMs,
    commandTimeoutMs,
    ...(outbox !== undefined && { outbox: outbox as OutboxWriter }),
  };
}
