import type { JobOptions } from '../engine/options.js';
import type { WorkerOptions } from '../engine/worker-options.js';
import { PREFIX_PATTERN, PREFIX_RULE } from '../store/keys.js';
import type { RedisConnection } from '../store/connections/options.js';
import { resolveConnection } from '../store/connections/options.js';
import type { Durability } from '../store/store-options.js';
import type { OutboxWriter } from '../store/transaction.js';
import { InvalidArgumentError, UnknownOptionError, type UnknownKey } from '../common/errors.js';
import { CONNECTION_HINTS, JOB_HINTS, MODULE_HINTS, WORKER_HINTS } from '../common/option-hints.js';
import { describe, unknownKeys, type OptionHints } from '../common/validation.js';
import { JOB_OPTION_KEYS } from '../engine/options.js';
import { WORKER_OPTION_KEYS } from '../engine/worker-options.js';
import { NATS_OPTION_KEYS, resolveNatsOptions, type NatsNotifyOptions } from '../notify/nats-options.js';
import { CONNECTION_KEYS as STORE_CONNECTION_KEYS, STORE_OPTION_KEYS } from '../store/store-options.js';
import { SpoolBootstrapError } from './errors.js';
import type { PostgresStoreOptions } from '../postgres/postgres-store.js';
import { DEFAULT_CONNECTION } from './tokens.js';

/**
 * One Redis server, Redis Cluster or Sentinel setup, as the engine's
 * RedisStore takes it: `{ url }`, `{ host, port, username, password, db,
 * tls }`, `{ cluster }`, `{ sentinel: { name, sentinels } }` (the module
 * opens and closes the client) or `{ client }` (yours), with the store's
 * options beside it.
 *
 * @example
 * QueueModule.forRoot({ connection: { host: 'redis.internal', port: 6380, password: process.env.REDIS_PASSWORD, tls: true, prefix: 'billing' } })
 */
export type SpoolConnectionOptions = (RedisConnection & SpoolConnectionSettings) | SpoolPostgresConnectionOptions;

/**
 * PostgreSQL instead of Redis (a PostgresStore; optional peer `pg`):
 * `{ postgres: { connectionString } }` or `{ postgres: { pool } }` (your node-postgres pool, left open),
 * with `schema` (default 'spool') and `migrate` (create or upgrade the schema at bootstrap).
 */
export interface SpoolPostgresConnectionOptions {
  readonly postgres: SpoolPostgresConnection;
  /** Not for PostgreSQL: the bootstrap does not wait for the database (an unreachable one fails it). */
  readonly waitForRedis?: never;
}

/** The store options of a module connection (everything beside how Redis is reached). */
export interface SpoolConnectionSettings {
  /** 'replicated': writes a caller is acknowledged for wait for a replica (WAIT); see docs/operations/cluster.md. Default 'async'. */
  readonly durability?: Durability;
  /** With durability 'replicated': how long one WAIT lasts, in ms. Default 1,000. */
  readonly replicationTimeoutMs?: number;
  /** Key prefix (hash tag part). Default 'spool'. */
  readonly prefix?: string;
  /** Refuse to start (UnsupportedServerError) when the server's maxmemory-policy is not noeviction, instead of warning. Default false. */
  readonly requireNoEviction?: boolean;
  /** How long scripts refused with LOADING / BUSY / TRYAGAIN / MASTERDOWN are retried before failing, in ms. Default 10,000. */
  readonly transientRetryMs?: number;
  /**
   * How long a call waits while Redis gives no reply, in ms: then it rejects with CommandTimeoutError (retryable; retry
   * an add with the same jobId). Default 5,000 (plus replicationTimeoutMs with durability 'replicated'); blocking reads excluded.
   */
  readonly commandTimeoutMs?: number;
  /** While Redis is unreachable, at most one summary line per this many ms (after one error line). Default 30,000. */
  readonly outageLogInterval?: number;
  /** An `Outbox` (spool/outbox): `add(name, data, { tx })` writes the job in your PostgreSQL transaction; an `OutboxRelay` moves it to Redis. */
  readonly outbox?: OutboxWriter;
  /**
   * With `outbox`: the module runs an OutboxRelay for it, started at
   * application bootstrap and stopped at shutdown (before the connection
   * closes). true for the defaults, or the relay's settings. One relay per
   * Outbox, on the first connection that names it. Default: none (run your own).
   */
  readonly outboxRelay?: boolean | SpoolOutboxRelayOptions;
  /**
   * Redis not up at bootstrap: true keeps connecting with capped backoff
   * (the engine's connect({ wait: true })) and logs every 5 s while it
   * waits; false fails the bootstrap at once with RedisUnavailableError.
   * Default: true for a connection that `@Processor` classes use, false for
   * one that only produces.
   */
  readonly waitForRedis?: boolean;
}

/** The OutboxRelay settings a module connection may set (the outbox and the store are the connection's). */
export interface SpoolOutboxRelayOptions {
  /** The poll under LISTEN/NOTIFY, in ms. Default 1,000. */
  readonly pollMs?: number;
  /** Rows moved per transaction. Default 500. */
  readonly batchSize?: number;
  /** Refusals of one row before it is set aside as failed. Default 5. */
  readonly maxAttempts?: number;
}

const RELAY_KEYS: readonly string[] = ['pollMs', 'batchSize', 'maxAttempts'];

/** A PostgreSQL connection of QueueModule.forRoot: where the database is, the schema, and whether to migrate it at bootstrap. */
export type SpoolPostgresConnection = Pick<PostgresStoreOptions, 'connectionString' | 'pool' | 'schema' | 'migrate' | 'poolSize'>;

const POSTGRES_KEYS: readonly string[] = ['connectionString', 'pool', 'schema', 'migrate', 'poolSize'];

/**
 * Worker options a processor (or the module, as defaults) may set: everything but the store and the logger
 * (per-name caps and batches are `@OnJob` options; a sandbox is `@Processor`'s `sandbox`, with its file).
 */
export type ProcessorWorkerOptions = Omit<WorkerOptions, 'store' | 'logger' | 'nameConcurrency' | 'batch' | 'sandbox'>;

/** Options of `QueueModule.forRoot()` and `forRootAsync()`: the connection(s), notify transport and defaults of every queue and processor. */
export interface QueueModuleOptions {
  /** The default connection. */
  readonly connection: SpoolConnectionOptions;
  /** More servers by name, used with registerQueue({ connection }) and `@Processor({ connection })`. */
  readonly connections?: Readonly<Record<string, SpoolConnectionOptions>>;
  /** Options every job of every registered queue gets unless the queue or the job sets its own. */
  readonly defaultJobOptions?: JobOptions;
  /** Worker defaults for every processor (each `@Processor` may override). */
  readonly workers?: ProcessorWorkerOptions;
  /**
   * How workers hear of new work, lost leases and finished jobs. Default:
   * Redis pub/sub. `{ nats: { servers, kvBucket? } }`: NATS (optional peers
   * @nats-io/transport-node and @nats-io/kv), for every connection.
   */
  readonly notify?: SpoolNotifyOptions;
  /**
   * With OpenTelemetry installed: producer spans for adds and flows, consumer
   * spans for handlers, the trace context stored on jobs. Default true;
   * false turns all of it off for every queue, worker and flow producer of
   * the module (a processor's or `workers` tracing option still wins for workers).
   */
  readonly tracing?: boolean;
}

/** The notify transport of QueueModule.forRoot: NATS settings as NatsNotify takes them (its logger is Nest's). */
export interface SpoolNotifyOptions {
  readonly nats?: Omit<NatsNotifyOptions, 'logger'>;
}

const MODULE_KEYS = ['connection', 'connections', 'defaultJobOptions', 'workers', 'notify', 'tracing'];
/** The RedisStore's own keys (one shape for both), plus what only the module does. */
const CONNECTION_KEYS: readonly string[] = [...STORE_CONNECTION_KEYS, ...STORE_OPTION_KEYS.filter((k) => k !== 'logger' && k !== 'notify'), 'waitForRedis', 'postgres', 'outboxRelay'];

function plain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A connection is an object literal: an instance there (a RedisStore, a client) is a slip its shape error names. */
function literal(value: unknown): value is Record<string, unknown> {
  const proto: unknown = plain(value) && Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Worker options the module's `workers` and `@Processor` take. */
const PROCESSOR_WORKER_KEYS = WORKER_OPTION_KEYS.filter((k) => k !== 'store' && k !== 'logger' && k !== 'nameConcurrency');

/** Unknown keys fail together, each with the did-you-mean (or BullMQ counterpart) of UnknownOptionError. */
export function knownKeys(value: object, known: readonly string[], field: string, hints?: OptionHints): void {
  throwUnknown(unknownKeys(value, known, field, hints));
}

function throwUnknown(keys: readonly UnknownKey[]): void {
  if (keys.length === 0) return;
  const unknown = new UnknownOptionError(keys);
  throw new SpoolBootstrapError(unknown.field, 'is not an option', unknown.fix);
}

/** Every unknown key of the module options, nested objects included, so one bootstrap reports them all. */
function unknownModuleKeys(options: Record<string, unknown>, field: string): UnknownKey[] {
  const found = unknownKeys(options, MODULE_KEYS, field, MODULE_HINTS);
  const connections: [string, unknown][] = [[`${field}.connection`, options.connection]];
  if (plain(options.connections)) connections.push(...Object.entries(options.connections).map(([name, c]): [string, unknown] => [`${field}.connections.${name}`, c]));
  for (const [at, connection] of connections) {
    if (!literal(connection)) continue;
    found.push(...unknownKeys(connection, CONNECTION_KEYS, at, CONNECTION_HINTS));
    if (plain(connection.postgres)) found.push(...unknownKeys(connection.postgres, POSTGRES_KEYS, `${at}.postgres`));
    if (plain(connection.outboxRelay)) found.push(...unknownKeys(connection.outboxRelay, RELAY_KEYS, `${at}.outboxRelay`));
  }
  if (plain(options.workers)) found.push(...unknownKeys(options.workers, PROCESSOR_WORKER_KEYS, `${field}.workers`, WORKER_HINTS));
  if (plain(options.defaultJobOptions)) found.push(...unknownKeys(options.defaultJobOptions, JOB_OPTION_KEYS, `${field}.defaultJobOptions`, JOB_HINTS));
  if (plain(options.notify)) {
    found.push(...unknownKeys(options.notify, ['nats'], `${field}.notify`));
    if (plain(options.notify.nats)) found.push(...unknownKeys(options.notify.nats, NATS_OPTION_KEYS.filter((k) => k !== 'logger'), `${field}.notify.nats`, { logger: "the module passes Nest's logger" }));
  }
  return found;
}

/**
 * One connection's options, wherever they are given (forRoot's `connection`
 * and `connections`, an inline `registerQueue({ connection })`): unknown keys
 * with their hints, then the shape.
 */
export function checkConnectionOptions(value: unknown, field: string): void {
  if (literal(value)) throwUnknown(unknownKeys(value, CONNECTION_KEYS, field, CONNECTION_HINTS));
  checkConnection(value, field);
}

function checkConnection(value: unknown, field: string): void {
  if (!literal(value)) throw new SpoolBootstrapError(field, `must be an object { url }, { host, port }, { cluster }, { sentinel }, { client } or { postgres }, got ${describe(value)}`, "e.g. { url: 'redis://127.0.0.1:6379' }");
  if (value.postgres !== undefined) return checkPostgres(value, field);
  try {
    resolveConnection(value, field);
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw new SpoolBootstrapError(err.field, err.message.slice(err.field.length + 1));
    throw err;
  }
  if (value.prefix !== undefined && (typeof value.prefix !== 'string' || !PREFIX_PATTERN.test(value.prefix))) {
    throw new SpoolBootstrapError(`${field}.prefix`, `must be ${PREFIX_RULE}, got ${describe(value.prefix)}`);
  }
  for (const key of ['requireNoEviction', 'waitForRedis']) {
    if (value[key] !== undefined && typeof value[key] !== 'boolean') {
      throw new SpoolBootstrapError(`${field}.${key}`, `must be true or false, got ${describe(value[key])}`);
    }
  }
  for (const key of ['outageLogInterval', 'commandTimeoutMs']) {
    const ms = value[key];
    if (ms !== undefined && (typeof ms !== 'number' || !Number.isInteger(ms) || ms < 1)) {
      throw new SpoolBootstrapError(`${field}.${key}`, `must be a whole number of ms >= 1, got ${describe(ms)}`);
    }
  }
  checkRelay(value, field);
  const retry = value.transientRetryMs;
  if (retry !== undefined && (typeof retry !== 'number' || !Number.isInteger(retry) || retry < 0)) {
    throw new SpoolBootstrapError(`${field}.transientRetryMs`, `must be a whole number of ms >= 0, got ${describe(retry)}`);
  }
}

/** outboxRelay: true/false or its settings (whole numbers >= 1), and only beside an outbox. */
function checkRelay(value: Record<string, unknown>, field: string): void {
  const relay = value.outboxRelay;
  if (relay === undefined || relay === false) return;
  if (relay !== true && !plain(relay)) throw new SpoolBootstrapError(`${field}.outboxRelay`, `must be true, false or { pollMs?, batchSize?, maxAttempts? }, got ${describe(relay)}`);
  if (value.outbox === undefined) {
    throw new SpoolBootstrapError(`${field}.outboxRelay`, 'needs an outbox on the same connection to relay from', 'add outbox: new Outbox({ connectionString }) (spool/outbox) beside it, or leave outboxRelay out');
  }
  if (relay === true) return;
  knownKeys(relay, RELAY_KEYS, `${field}.outboxRelay`);
  for (const key of RELAY_KEYS) {
    const n = relay[key];
    if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 1)) {
      throw new SpoolBootstrapError(`${field}.outboxRelay.${key}`, `must be a whole number >= 1, got ${describe(n)}`);
    }
  }
}

/** A PostgreSQL connection: `postgres` alone (the Redis settings mean nothing there), with exactly one of connectionString and pool. */
function checkPostgres(value: Record<string, unknown>, field: string): void {
  const others = Object.keys(value).filter((k) => k !== 'postgres' && value[k] !== undefined);
  if (others.length > 0) throw new SpoolBootstrapError(`${field}.${others[0]!}`, 'is a Redis setting, not one of a postgres connection', 'a postgres connection takes { postgres: { connectionString | pool, schema?, migrate? } } only');
  const pg = value.postgres;
  if (!plain(pg)) throw new SpoolBootstrapError(`${field}.postgres`, `must be an object { connectionString } or { pool }, got ${describe(pg)}`);
  if ((pg.connectionString === undefined) === (pg.pool === undefined)) {
    throw new SpoolBootstrapError(`${field}.postgres`, 'needs exactly one of connectionString and pool', "e.g. { connectionString: 'postgres://app@127.0.0.1:5432/app' }");
  }
  if (pg.connectionString !== undefined && (typeof pg.connectionString !== 'string' || !/^postgres(ql)?:\/\//.test(pg.connectionString))) {
    throw new SpoolBootstrapError(`${field}.postgres.connectionString`, `must be a postgres:// URL, got ${describe(pg.connectionString)}`);
  }
  if (pg.migrate !== undefined && typeof pg.migrate !== 'boolean') throw new SpoolBootstrapError(`${field}.postgres.migrate`, `must be true or false, got ${describe(pg.migrate)}`);
}

/** Checks QueueModule options at bootstrap; the error names the bad field. */
export function validateModuleOptions(options: unknown): asserts options is QueueModuleOptions {
  const field = 'QueueModule options';
  if (!plain(options)) throw new SpoolBootstrapError(field, `must be an object, got ${describe(options)}`, 'pass { connection: { url } }');
  throwUnknown(unknownModuleKeys(options, field));
  if (options.connection === undefined) {
    throw new SpoolBootstrapError(`${field}.connection`, 'is required', "pass { url: 'redis://host:6379' } or { client }");
  }
  checkConnection(options.connection, `${field}.connection`);
  if (options.connections !== undefined) {
    if (!plain(options.connections)) throw new SpoolBootstrapError(`${field}.connections`, 'must be an object of named connections');
    for (const [name, connection] of Object.entries(options.connections)) {
      if (name === DEFAULT_CONNECTION) {
        throw new SpoolBootstrapError(`${field}.connections.${name}`, 'is reserved', 'the default connection is options.connection');
      }
      checkConnection(connection, `${field}.connections.${name}`);
    }
  }
  if (options.defaultJobOptions !== undefined && !plain(options.defaultJobOptions)) {
    throw new SpoolBootstrapError(`${field}.defaultJobOptions`, 'must be an object of job options');
  }
  if (options.workers !== undefined && !plain(options.workers)) {
    throw new SpoolBootstrapError(`${field}.workers`, 'must be an object of worker options');
  }
  if (options.notify !== undefined) checkNotify(options.notify, `${field}.notify`);
  if (options.tracing !== undefined && typeof options.tracing !== 'boolean') {
    throw new SpoolBootstrapError(`${field}.tracing`, `must be true or false, got ${describe(options.tracing)}`);
  }
}

function checkNotify(value: unknown, field: string): void {
  if (!plain(value)) throw new SpoolBootstrapError(field, 'must be an object', "e.g. { nats: { servers: 'nats://127.0.0.1:4222' } }");
  knownKeys(value, ['nats'], field);
  if (value.nats === undefined) return;
  if (plain(value.nats) && 'logger' in value.nats) throw new SpoolBootstrapError(`${field}.nats.logger`, 'is not an option', "the module passes Nest's logger");
  try {
    resolveNatsOptions(value.nats, `${field}.nats`);
  } catch (err) {
    if (err instanceof InvalidArgumentError) throw new SpoolBootstrapError(err.field, err.message.slice(err.field.length + 1));
    throw err;
  }
}
