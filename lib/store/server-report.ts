import { ErrorReply } from 'redis';
import { infoField } from './server-checks.js';
import type { RedisClientLike } from './redis-client.js';

/** One node of a Redis Cluster as CLUSTER NODES lists it. */
export interface ClusterNodeInfo {
  readonly id: string;
  /** host:port as the cluster announces it. */
  readonly address: string;
  readonly role: 'master' | 'replica';
  /** For a replica: its master's id. */
  readonly masterId?: string;
  /** Slot ranges served (masters), e.g. "0-5460". */
  readonly slots: string;
  /** Flags such as fail, pfail, handshake, noaddr (besides myself/master/slave). */
  readonly trouble: readonly string[];
}

/** What the server says about itself, for the dashboard's Redis page and `spool doctor`. Fields it would not tell are absent. */
export interface ServerReport {
  readonly version?: string;
  readonly mode?: string;
  readonly usedMemory?: number;
  /** 0: no limit. */
  readonly maxmemory?: number;
  readonly maxmemoryPolicy?: string;
  readonly connectedClients?: number;
  /** Keys of the database (INFO keyspace), every prefix together. */
  readonly keys?: number;
  /** Redis's TIME, and the host's clock at the middle of that round trip: their difference is the clock skew. */
  readonly redisTime?: number;
  readonly hostTime: number;
  readonly roundTripMs: number;
  /** Cluster state ("ok", "fail") and nodes, when on a cluster. */
  readonly cluster?: { readonly state: string; readonly nodes: readonly ClusterNodeInfo[] };
  /** Reads the server refused (a managed service's ACL or renamed command), with its reply. */
  readonly refused: readonly string[];
}

async function ask(client: RedisClientLike, args: readonly string[], refused: string[]): Promise<unknown> {
  try {
    return await client.sendCommand([...args]);
  } catch (err) {
    if (!(err instanceof ErrorReply)) throw err;
    refused.push(`${args.join(' ')}: ${err.message}`);
    return undefined;
  }
}

function num(text: string | undefined): number | undefined {
  const n = Number(text);
  return text === undefined || text === '' || !Number.isFinite(n) ? undefined : n;
}

export function parseClusterNodes(text: string): ClusterNodeInfo[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id = '', addr = '', flags = '', master = '-', , , , , ...slots] = line.trim().split(' ');
      const flagList = flags.split(',');
      const role = flagList.includes('master') ? 'master' : 'replica';
      return {
        id,
        address: addr.split('@')[0]!,
        role,
        ...(role === 'replica' && master !== '-' && { masterId: master }),
        slots: slots.filter((s) => !s.startsWith('[')).join(' '),
        trouble: flagList.filter((f) => !['myself', 'master', 'slave', 'noflags'].includes(f)),
      };
    });
}

/**
 * Reads the server's facts in a fixed handful of commands (INFO, CONFIG GET
 * maxmemory-policy when INFO hides it, TIME, CLUSTER INFO / NODES on a
 * cluster): no scan, whatever the number of keys.
 */
export async function readServerReport(client: RedisClientLike, cluster: boolean): Promise<ServerReport> {
  const refused: string[] = [];
  const info = await ask(client, ['INFO'], refused);
  const text = typeof info === 'string' ? info : info === undefined ? '' : String(info);
  let policy = infoField(text, 'maxmemory_policy');
  if (policy === undefined) {
    const reply = await ask(client, ['CONFIG', 'GET', 'maxmemory-policy'], refused);
    if (Array.isArray(reply) && reply.length >= 2) policy = String(reply[1]);
    else if (reply instanceof Map) policy = reply.get('maxmemory-policy') as string | undefined;
  }
  const before = Date.now();
  const time = await ask(client, ['TIME'], refused);
  const after = Date.now();
  const redisTime = Array.isArray(time) ? Number(time[0]) * 1000 + Math.round(Number(time[1]) / 1000) : undefined;
  const keyspace = [...text.matchAll(/^db\d+:keys=(\d+)/gm)].reduce((sum, m) => sum + Number(m[1]), 0);
  let clusterReport: ServerReport['cluster'];
  if (cluster) {
    const state = infoField(String((await ask(client, ['CLUSTER', 'INFO'], refused)) ?? ''), 'cluster_state') ?? 'unknown';
    const nodes = await ask(client, ['CLUSTER', 'NODES'], refused);
    clusterReport = { state, nodes: typeof nodes === 'string' ? parseClusterNodes(nodes) : [] };
  }
  const version = infoField(text, 'redis_version');
  const mode = infoField(text, 'redis_mode');
  return {
    ...(version !== undefined && { version }),
    ...(mode !== undefined && { mode }),
    ...(num(infoField(text, 'used_memory')) !== undefined && { usedMemory: num(infoField(text, 'used_memory'))! }),
    ...(num(infoField(text, 'maxmemory')) !== undefined && { maxmemory: num(infoField(text, 'maxmemory'))! }),
    ...(policy !== undefined && { maxmemoryPolicy: policy }),
    ...(num(infoField(text, 'connected_clients')) !== undefined && { connectedClients: num(infoField(text, 'connected_clients'))! }),
    ...(text !== '' && { keys: keyspace }),
    ...(redisTime !== undefined && { redisTime }),
    hostTime: Math.round((before + after) / 2),
    roundTripMs: after - before,
    ...(clusterReport && { cluster: clusterReport }),
    refused,
  };
}

/**
 * Whether ACL user `user` may run `args` (ACL DRYRUN, Redis 7): null when
 * it may, else the server's reason. Throws an ErrorReply when this
 * connection may not ask (DRYRUN needs the acl command category).
 */
export async function aclDryRun(client: RedisClientLike, user: string, args: readonly string[]): Promise<string | null> {
  const reply = await client.sendCommand(['ACL', 'DRYRUN', user, ...args]);
  const text = String(reply);
  return text === 'OK' ? null : text;
}

/** The event stream of a queue: its length, the maxLen it is trimmed to (0: off), and its oldest entry's time. */
export interface EventStreamInfo {
  readonly length: number;
  readonly maxLen: number;
  readonly oldestAt?: number;
}

export async function readEventStream(client: RedisClientLike, streamKey: string, metaKey: string): Promise<EventStreamInfo> {
  const [length, ev, first] = await Promise.all([
    client.sendCommand(['XLEN', streamKey]),
    client.sendCommand(['HGET', metaKey, 'ev']),
    client.sendCommand(['XRANGE', streamKey, '-', '+', 'COUNT', '1']),
  ]);
  const id = Array.isArray(first) && Array.isArray(first[0]) ? String(first[0][0]) : undefined;
  return {
    length: Number(length),
    // lua/includes/events: absent means the default, 10,000.
    maxLen: ev === null || ev === undefined ? 10_000 : Number(ev),
    ...(id !== undefined && { oldestAt: Number(id.split('-')[0]) }),
  };
}

/** The roles whose ACL rights `spool doctor` checks: who adds jobs, who runs them, who operates (CLI, dashboard). */
export type AclRole = 'producer' | 'worker' | 'ops';
export const ACL_ROLES: readonly AclRole[] = ['producer', 'worker', 'ops'];

/**
 * Commands a role's user must be allowed, on a queue's own key and channel
 * names: the scripts (EVALSHA, SCRIPT LOAD) and the commands they run inside
 * (ACL checks those too), the wake-up channels, and for ops the scan that
 * lists queues and the event stream reads.
 */
export function roleCommands(role: AclRole, keys: { readonly meta: string; readonly events: string }, channels: { readonly sched: string; readonly owls: string; readonly done: string }, prefix: string): string[][] {
  const k = keys.meta;
  const scripts = [
    ['EVALSHA', '0'.repeat(40), '1', k],
    ['SCRIPT', 'LOAD', 'return 1'],
    ['HGET', k, 'f'],
    ['HSET', k, 'f', 'v'],
    ['ZADD', k, '1', 'm'],
    ['LPUSH', k, 'v'],
    ['XADD', keys.events, '*', 'f', 'v'],
    ['INCRBY', k, '1'],
    ['DEL', k],
    ['PUBLISH', channels.sched, 'm'],
  ];
  if (role === 'producer') return scripts;
  // GETDEL: each heartbeat takes a pause or resume asked of the worker (redis-store-base takeWorkerRequest).
  // BLPOP (and RPUSH, its stop marker): an idle worker waits for pushes on its own list (push-receiver).
  if (role === 'worker') return [...scripts, ['GETDEL', k], ['BLPOP', k, '1'], ['RPUSH', k, 'v'], ['SUBSCRIBE', channels.sched], ['SUBSCRIBE', channels.owls], ['SUBSCRIBE', channels.done]];
  return [...scripts, ['SCAN', '0', 'MATCH', `{${prefix}:*`], ['XREAD', 'COUNT', '1', 'STREAMS', keys.events, '0'], ['SUBSCRIBE', channels.done]];
}
