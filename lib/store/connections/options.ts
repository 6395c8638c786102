import { InvalidArgumentError, UnknownOptionError } from '../../common/errors.js';
import { describe, unknownKeys } from '../../common/validation.js';
import type { ClusterClientLike, SpoolClusterOptions } from '../cluster-client.js';
import type { RedisClientLike } from '../redis-client.js';
import type { SentinelClientLike } from './sentinel-client.js';
import { checkTls, type TlsOption } from './tls.js';

/**
 * Every way to reach Redis, as the store and `QueueModule` take it (one
 * object, beside the store options): checked here once, with errors that
 * name the field, then turned into node-redis clients by open-client.ts.
 */

/** A URL: `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS (`tls` then adds a CA, a client certificate...). */
export interface UrlConnection {
  readonly url: string;
  readonly tls?: TlsOption;
}

/** The shape BullMQ (ioredis) users have in their config. Default host 127.0.0.1, port 6379, db 0. */
export interface HostConnection {
  readonly host?: string;
  readonly port?: number;
  /** An ACL user (Redis 6+); without it, the `default` user. */
  readonly username?: string;
  readonly password?: string;
  /** Database number (SELECT); not on Redis Cluster. */
  readonly db?: number;
  readonly tls?: TlsOption;
}

/** Redis Cluster: node-redis `createCluster()` options; `tls`, `username` and `password` apply to every node. */
export interface ClusterConnection {
  readonly cluster: SpoolClusterOptions;
  readonly tls?: TlsOption;
  readonly username?: string;
  readonly password?: string;
}

/** One sentinel's address. */
export interface SentinelNode {
  readonly host: string;
  readonly port: number;
}

/** Where the sentinels are and how to talk to them (their own ACL user, password and TLS). */
export interface SentinelSettings {
  /** The master's name in the sentinels' configuration (`sentinel monitor <name> ...`). */
  readonly name: string;
  /** Some of the sentinels (three is plenty): the others and the master are discovered from them. */
  readonly sentinels: readonly SentinelNode[];
  /** The sentinels' ACL user, when they require one. */
  readonly username?: string;
  /** The sentinels' password (`requirepass` of the sentinels, not the master's: that one is the connection's `password`). */
  readonly password?: string;
  /** TLS to the sentinels. Default: the connection's `tls`. */
  readonly tls?: TlsOption;
}

/**
 * Redis Sentinel: the master is found through the sentinels and followed
 * across failovers. `username`, `password`, `db` and `tls` beside `sentinel`
 * are the master's (and its replicas').
 */
export interface SentinelConnection {
  readonly sentinel: SentinelSettings;
  readonly username?: string;
  readonly password?: string;
  readonly db?: number;
  readonly tls?: TlsOption;
}

/** A node-redis client of your own, single-node, cluster or sentinel (`createSentinel()`): it stays yours (Spool neither configures nor closes it). */
export interface ClientConnection {
  readonly client: RedisClientLike | ClusterClientLike | SentinelClientLike;
}

/**
 * How the store reaches Redis: `{ url }`, `{ host, port, username, password,
 * db, tls }`, `{ cluster }`, `{ sentinel }` (the store owns the clients it
 * makes from these), or `{ client }` (yours).
 */
export type RedisConnection = UrlConnection | HostConnection | ClusterConnection | SentinelConnection | ClientConnection;

/** Credentials and TLS of the data nodes. */
export interface NodeAuth {
  readonly username?: string;
  readonly password?: string;
  readonly db?: number;
  readonly tls?: TlsOption;
}

/** A connection after its checks, by kind. */
export type ResolvedConnection =
  | { readonly kind: 'client'; readonly client: RedisClientLike | ClusterClientLike | SentinelClientLike }
  | { readonly kind: 'url'; readonly url: string; readonly auth: NodeAuth }
  | { readonly kind: 'host'; readonly host: string; readonly port: number; readonly auth: NodeAuth }
  | { readonly kind: 'cluster'; readonly cluster: SpoolClusterOptions; readonly auth: NodeAuth }
  | { readonly kind: 'sentinel'; readonly sentinel: SentinelSettings; readonly auth: NodeAuth };

/** Keys of a connection object (beside which the store's options may stand). */
export const CONNECTION_KEYS = ['url', 'client', 'cluster', 'sentinel', 'host', 'port', 'username', 'password', 'db', 'tls'] as const;

const SENTINEL_KEYS = ['name', 'sentinels', 'username', 'password', 'tls'] as const satisfies readonly (keyof SentinelSettings)[];

const SENTINEL_HINTS = {
  sentinelPassword: 'did you mean "password"? (the sentinels\' own password)',
  masterName: 'did you mean "name"?',
  sentinelRootNodes: 'did you mean "sentinels"? ([{ host, port }, ...])',
  db: "the master's db goes beside sentinel: { sentinel: { name, sentinels }, db }",
};

const FORMS = "pass { url: 'redis://host:6379' }, { host, port, password, tls }, { cluster: { rootNodes } }, { sentinel: { name, sentinels } } or { client } (a node-redis client)";

function text(value: unknown, field: string, what = 'a string'): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw new InvalidArgumentError(field, `must be ${what}, got ${describe(value)}`);
  return value;
}

function port(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 65535) {
    throw new InvalidArgumentError(field, `must be a port number from 1 to 65535, got ${describe(value)}`);
  }
  return value;
}

function auth(c: Readonly<Record<string, unknown>>, field: string, allowDb: boolean): NodeAuth {
  const username = text(c.username, `${field}.username`, 'an ACL user name');
  const password = text(c.password, `${field}.password`);
  if (username !== undefined && password === undefined) {
    throw new InvalidArgumentError(`${field}.password`, 'is missing', 'an ACL user needs its password');
  }
  const db = c.db;
  if (db !== undefined) {
    if (!allowDb) throw new InvalidArgumentError(`${field}.db`, 'is not available on Redis Cluster', 'a cluster has database 0 only: use a prefix to keep apps apart');
    if (typeof db !== 'number' || !Number.isInteger(db) || db < 0) throw new InvalidArgumentError(`${field}.db`, `must be a database number >= 0, got ${describe(db)}`);
  }
  const tls = checkTls(c.tls, `${field}.tls`);
  return {
    ...(username !== undefined && { username }),
    ...(password !== undefined && { password }),
    ...(typeof db === 'number' && { db }),
    ...(tls !== undefined && { tls }),
  };
}

/** The connection keys given besides `kind`'s own: each one is refused with what to do instead. */
function refuseOthers(c: Readonly<Record<string, unknown>>, field: string, kind: string, allowed: readonly string[], fix: string): void {
  for (const key of CONNECTION_KEYS) {
    if (key !== kind && !allowed.includes(key) && c[key] !== undefined) {
      throw new InvalidArgumentError(`${field}.${key}`, `cannot be given with ${kind}`, fix);
    }
  }
}

function sentinelSettings(value: unknown, field: string): SentinelSettings {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(field, `must be { name, sentinels: [{ host, port }] }, got ${describe(value)}`);
  }
  const unknown = unknownKeys(value, SENTINEL_KEYS, field, SENTINEL_HINTS);
  if (unknown.length > 0) throw new UnknownOptionError(unknown);
  const s = value as Record<string, unknown>;
  const name = text(s.name, `${field}.name`, "the master's name the sentinels monitor");
  if (name === undefined) throw new InvalidArgumentError(`${field}.name`, 'is missing', "the master's name in the sentinels' configuration (sentinel monitor <name> ...)");
  if (!Array.isArray(s.sentinels) || s.sentinels.length === 0) {
    throw new InvalidArgumentError(`${field}.sentinels`, `must be a non-empty array of { host, port }, got ${describe(s.sentinels)}`, "e.g. sentinels: [{ host: '10.0.0.1', port: 26379 }]");
  }
  const sentinels = s.sentinels.map((node: unknown, i): SentinelNode => {
    const at = `${field}.sentinels[${i}]`;
    if (typeof node !== 'object' || node === null) throw new InvalidArgumentError(at, `must be { host, port }, got ${describe(node)}`);
    const unknownNode = unknownKeys(node, ['host', 'port'], at);
    if (unknownNode.length > 0) throw new UnknownOptionError(unknownNode);
    const { host, port: p } = node as Record<string, unknown>;
    return { host: text(host, `${at}.host`, 'a host name') ?? '127.0.0.1', port: port(p, `${at}.port`) };
  });
  const rest = auth(s, field, false);
  return { name, sentinels, ...rest };
}

/**
 * Checks a connection object (the connection keys of `c`; other keys are the
 * caller's) and says which kind it is. Errors name the field under `field`.
 */
export function resolveConnection(c: Readonly<Record<string, unknown>>, field: string): ResolvedConnection {
  const kinds = (['url', 'client', 'cluster', 'sentinel'] as const).filter((k) => c[k] !== undefined);
  const hostForm = c.host !== undefined || c.port !== undefined;
  if (kinds.length > 1 || (kinds.length === 1 && hostForm)) {
    const given = [...kinds, ...(hostForm ? [c.host !== undefined ? 'host' : 'port'] : [])];
    throw new InvalidArgumentError(field, `has both ${given.join(' and ')}`, 'pass one way to reach Redis');
  }
  const kind = kinds[0];
  if (kind === 'client') {
    refuseOthers(c, field, 'client', [], 'a client of your own is used as it is: configure TLS and credentials when you create it');
    if (typeof c.client !== 'object' || c.client === null) throw new InvalidArgumentError(`${field}.client`, `must be a node-redis client, got ${describe(c.client)}`);
    return { kind, client: c.client as RedisClientLike | ClusterClientLike | SentinelClientLike };
  }
  if (kind === 'url') {
    if (typeof c.url !== 'string') throw new InvalidArgumentError(`${field}.url`, `must be a string, got ${describe(c.url)}`, FORMS);
    let protocol = '';
    try {
      protocol = new URL(c.url).protocol;
    } catch {
      protocol = '';
    }
    if (protocol !== 'redis:' && protocol !== 'rediss:') {
      throw new InvalidArgumentError(`${field}.url`, `must be a redis:// or rediss:// URL, got ${describe(c.url.replace(/\/\/[^@/]*@/, '//***@'))}`, 'e.g. redis://[user:password@]host:6379[/db]');
    }
    refuseOthers(c, field, 'url', ['tls'], 'put them in the URL (redis://user:password@host:port/db), or use { host, port, username, password, db } instead of url');
    const tls = checkTls(c.tls, `${field}.tls`);
    if (tls !== undefined && protocol !== 'rediss:') {
      throw new InvalidArgumentError(`${field}.tls`, 'is given with a redis:// URL, which is not encrypted', 'use a rediss:// URL');
    }
    return { kind, url: c.url, auth: tls === undefined ? {} : { tls } };
  }
  if (kind === 'cluster') {
    refuseOthers(c, field, 'cluster', ['tls', 'username', 'password', 'db'], 'give each node in cluster.rootNodes');
    const cluster = c.cluster;
    const fix = "pass { cluster: { rootNodes: [{ url: 'redis://host:7000' }, ...] } } (node-redis createCluster options)";
    if (typeof cluster !== 'object' || cluster === null || Array.isArray(cluster)) {
      throw new InvalidArgumentError(`${field}.cluster`, `must be node-redis cluster options, got ${describe(cluster)}`, fix);
    }
    const rootNodes = (cluster as { rootNodes?: unknown }).rootNodes;
    if (!Array.isArray(rootNodes) || rootNodes.length === 0) {
      throw new InvalidArgumentError(`${field}.cluster.rootNodes`, `must be a non-empty array of node options, got ${describe(rootNodes)}`, fix);
    }
    return { kind, cluster: cluster as SpoolClusterOptions, auth: auth(c, field, false) };
  }
  if (kind === 'sentinel') {
    refuseOthers(c, field, 'sentinel', ['tls', 'username', 'password', 'db'], 'the master is found through the sentinels');
    return { kind, sentinel: sentinelSettings(c.sentinel, `${field}.sentinel`), auth: auth(c, field, true) };
  }
  if (!hostForm) {
    throw new InvalidArgumentError(field, 'needs a url, a host, a cluster, a sentinel or a client', FORMS);
  }
  const host = text(c.host, `${field}.host`, 'a host name') ?? '127.0.0.1';
  return { kind: 'host', host, port: c.port === undefined ? 6379 : port(c.port, `${field}.port`), auth: auth(c, field, true) };
}

/** The connection part of an object that may hold other options too. */
export function connectionPart(c: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(CONNECTION_KEYS.filter((k) => c[k] !== undefined).map((k) => [k, c[k]]));
}
