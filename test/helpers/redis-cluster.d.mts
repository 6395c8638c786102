import type { RedisServer } from './redis-server.mjs';

export interface RedisClusterOptions {
  /** Masters that share the 16384 slots. Default 3. */
  readonly masters?: number;
  /** Replicas of each master. Default 1. */
  readonly replicasPerMaster?: number;
  /** cluster-node-timeout in ms: how long a silent master lasts before failover. Default 1000. */
  readonly nodeTimeout?: number;
  /** Persist each node with AOF (fsync always). Default false. */
  readonly appendonly?: boolean;
  /** Extra redis-server arguments for every node. */
  readonly args?: readonly string[];
  /**
   * Opt-in TLS (a makeCertificates() result from tls-redis.ts): every node also
   * listens for TLS on a free port of its own (`tlsPort`), requires client
   * certificates of that CA, and runs the bus and replication over TLS.
   */
  readonly tls?: { readonly dir: string; readonly caFile: string };
  /** How long start() waits for cluster_state:ok, in ms. Default 30,000. */
  readonly startTimeout?: number;
}

export interface ClusterNodeRow {
  readonly id: string;
  readonly port: number;
  readonly flags: readonly string[];
  readonly master: string | undefined;
  readonly link: string;
  readonly slots: readonly (readonly [number, number])[];
}

export declare function keySlot(key: string): number;
export declare function rawCommand(port: number, args: readonly (string | number)[], timeout?: number): Promise<string>;
export declare function parseClusterNodes(text: string): ClusterNodeRow[];

export declare class RedisCluster {
  static start(options?: RedisClusterOptions): Promise<RedisCluster>;
  readonly nodes: readonly RedisServer[];
  /** Root nodes for node-redis createCluster (the running nodes). */
  readonly rootNodes: { url: string }[];
  /** `rediss://` root nodes on the TLS ports (a cluster started with `tls`). */
  readonly tlsRootNodes: { url: string }[];
  node(port: number): RedisServer;
  topology(): Promise<ClusterNodeRow[]>;
  masters(): Promise<RedisServer[]>;
  masterFor(slotOrKey: number | string): Promise<RedisServer>;
  kill(node: RedisServer): Promise<void>;
  moveSlot(slotOrKey: number | string, to: RedisServer, options?: { readonly batch?: number; readonly between?: () => Promise<void> }): Promise<RedisServer>;
  waitForFailover(oldMaster: RedisServer, slotOrKey: number | string, timeout?: number): Promise<RedisServer>;
  restart(node: RedisServer, timeout?: number): Promise<void>;
  waitUntilHealthy(timeout?: number): Promise<void>;
  stop(): Promise<void>;
}
