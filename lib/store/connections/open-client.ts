import { createClient, type RedisSentinelOptions } from 'redis';
import { ClusterClient, createSpoolCluster, isClusterClient, type SpoolClusterOptions } from '../cluster-client.js';
import { spoolClientOptions, SPOOL_SOCKET, type RedisClientLike } from '../redis-client.js';
import type { NodeAuth, ResolvedConnection, SentinelSettings } from './options.js';
import { isSentinelClient, SentinelClient } from './sentinel-client.js';
import { tlsSocket } from './tls.js';

/**
 * The one place where a connection becomes a node-redis client. Every other
 * connection of a store (the subscriber, blocking event reads, verify()'s
 * and obliterate's own connections) is a duplicate() of this client, and
 * node-redis's duplicate() keeps the options: TLS, credentials and the
 * sentinel setup reach every connection.
 */
export function openClient(connection: ResolvedConnection): RedisClientLike {
  switch (connection.kind) {
    case 'client':
      if (isClusterClient(connection.client)) return new ClusterClient(connection.client);
      // A createSentinel() client sends commands with another signature: the adapter speaks it.
      return isSentinelClient(connection.client) ? new SentinelClient(connection.client) : (connection.client as RedisClientLike);
    case 'url':
      return createClient({ url: connection.url, ...spoolClientOptions(tlsSocket(connection.auth.tls)) }) as unknown as RedisClientLike;
    case 'host':
      return createClient({
        ...spoolClientOptions({ host: connection.host, port: connection.port, ...tlsSocket(connection.auth.tls) }),
        ...credentials(connection.auth),
      }) as unknown as RedisClientLike;
    case 'cluster':
      return clusterWithAuth(connection.cluster, connection.auth);
    case 'sentinel':
      return new SentinelClient(sentinelOptions(connection.sentinel, connection.auth));
  }
}

function credentials(auth: NodeAuth): { username?: string; password?: string; database?: number } {
  return {
    ...(auth.username !== undefined && { username: auth.username }),
    ...(auth.password !== undefined && { password: auth.password }),
    ...(auth.db !== undefined && auth.db > 0 && { database: auth.db }),
  };
}

/** `tls`, `username` and `password` of a cluster connection go to every node (node-redis's `defaults`); what you set in `defaults` wins. */
function clusterWithAuth(cluster: SpoolClusterOptions, auth: NodeAuth): ClusterClient {
  const tls = tlsSocket(auth.tls);
  if (!tls && auth.password === undefined) return createSpoolCluster(cluster);
  const defaults = cluster.defaults ?? {};
  type Socket = NonNullable<NonNullable<SpoolClusterOptions['defaults']>['socket']>;
  return createSpoolCluster({
    ...cluster,
    defaults: { ...credentials(auth), ...defaults, socket: { ...tls, ...defaults.socket } as Socket },
  });
}

/**
 * node-redis Sentinel options: the data nodes take Spool's client settings
 * (endless reconnects, no timeouts, no offline queue) with the master's
 * credentials and TLS; the sentinels take theirs (TLS defaults to the
 * master's). One master connection per client: Spool pipelines on it as on
 * a single-node client.
 */
export function sentinelOptions(sentinel: SentinelSettings, auth: NodeAuth): RedisSentinelOptions {
  const sentinelTls = tlsSocket(sentinel.tls ?? auth.tls);
  return {
    name: sentinel.name,
    sentinelRootNodes: sentinel.sentinels.map(({ host, port }) => ({ host, port })),
    nodeClientOptions: { ...spoolClientOptions(tlsSocket(auth.tls)), ...credentials(auth) },
    sentinelClientOptions: {
      socket: { ...SPOOL_SOCKET, ...sentinelTls },
      ...credentials({ ...(sentinel.username !== undefined && { username: sentinel.username }), ...(sentinel.password !== undefined && { password: sentinel.password }) }),
    },
    masterPoolSize: 1,
    commandOptions: { timeout: 0 },
    // A failover is heard on the sentinels' +switch-master at once; this is the net under it.
    scanInterval: 2000,
  } as RedisSentinelOptions;
}
