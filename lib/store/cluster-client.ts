import { createCluster, type RedisClusterOptions } from 'redis';
import { reconnectDelay, type RedisClientLike } from './redis-client.js';
import { waitAllowance, type ReplyClock } from './reply-clock.js';

/**
 * Options of node-redis's `createCluster()` (rootNodes, defaults, useReplicas,
 * ...). Spool adds its connection settings under them (see createSpoolCluster).
 */
export type SpoolClusterOptions = RedisClusterOptions;

type Listener = (...args: never[]) => void;

/**
 * A node-redis cluster client (`createCluster()`), as far as telling it from a
 * single-node client goes; any `createCluster()` client fits, whatever its
 * modules, scripts or RESP version.
 */
export interface ClusterClientLike {
  readonly masters: readonly object[];
  nodeClient(node: never): Promise<unknown>;
  getNodeClientForKey(key: string): Promise<unknown>;
}

/** A node client of a cluster: a node-redis client, whose commands take per-call options. */
interface NodeClient extends RedisClientLike {
  sendCommand(args: readonly string[], options?: object): Promise<unknown>;
  duplicate(overrides?: object): RedisClientLike;
}

/** Options for one command (node-redis CommandOptions), as the cluster passes them to the node that runs it. */
type CommandOptions = object;

/**
 * node-redis's routing core (RedisCluster._execute, 6.x): it picks the node
 * for `parser.firstKey`, calls `fn` with it, and calls `fn` again with the
 * node a MOVED or ASK reply names (after ASKING, on the same connection).
 * `fn` thus learns which node client served the command.
 */
type Execute = (
  parser: { readonly firstKey: string | undefined },
  isReadonly: boolean,
  options: CommandOptions | undefined,
  fn: (client: NodeClient, options: CommandOptions) => Promise<unknown>,
) => Promise<unknown>;

/** The parts of a node-redis cluster client that the adapter uses. */
interface ClusterInternals extends ClusterClientLike {
  readonly _execute?: Execute;
  readonly _commandOptions?: CommandOptions;
  readonly isOpen: boolean;
  readonly isReady: boolean;
  readonly masters: readonly object[];
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  duplicate(): ClusterInternals;
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown>;
  unsubscribe(channel: string, listener?: (message: string, channel: string) => unknown): Promise<unknown>;
  on(event: string, listener: Listener): unknown;
  off(event: string, listener: Listener): unknown;
}

/** A node-redis cluster client rather than a single-node client. */
export function isClusterClient(value: object): value is ClusterClientLike {
  const candidate = value as Partial<Record<'getNodeClientForKey' | 'nodeClient', unknown>>;
  return typeof candidate.getNodeClientForKey === 'function' && typeof candidate.nodeClient === 'function';
}

/**
 * A cluster client with Spool's settings, as spoolClientOptions() for one node:
 * endless capped reconnects, no socket or command timeout, no offline queue
 * (a command for a master that is down fails at once with
 * RedisUnavailableError; workers retry, producers decide). Your options win
 * where you set them.
 */
export function createSpoolCluster(options: SpoolClusterOptions): ClusterClient {
  const defaults = options.defaults ?? {};
  type Socket = NonNullable<NonNullable<SpoolClusterOptions['defaults']>['socket']>;
  const socket = { reconnectStrategy: reconnectDelay, connectTimeout: 5000, keepAlive: true, noDelay: true, ...defaults.socket } as Socket;
  const cluster = createCluster({
    ...options,
    defaults: {
      disableOfflineQueue: true,
      ...defaults,
      socket,
    },
    commandOptions: { timeout: 0, ...options.commandOptions },
  });
  return new ClusterClient(cluster);
}

const SCRIPT_COMMANDS = new Set(['EVAL', 'EVALSHA', 'EVAL_RO', 'EVALSHA_RO', 'FCALL', 'FCALL_RO']);
/** Commands about the server rather than a key: sent to one master (PING) or to each (see masterClients). */
const KEYLESS = new Set(['PING', 'INFO', 'SCRIPT', 'CLIENT', 'CONFIG', 'DBSIZE', 'WAIT', 'CLUSTER', 'TIME', 'COMMAND']);

/** The hash tag a SCAN MATCH pattern is confined to (`\{p:q\}:*` style escapes removed), when it has one. */
function scanTag(pattern: string): string | undefined {
  const open = pattern.indexOf('{');
  const close = pattern.indexOf('}', open + 1);
  if (open !== 0 || close === -1) return undefined;
  const tag = pattern.slice(0, close + 1);
  // A glob character inside the tag would match keys of other slots.
  if (/(^|[^\\])[*?[]/.test(tag)) return undefined;
  return tag.replace(/\\(.)/g, '$1');
}

/** The key a command is routed by (its slot picks the master), or undefined for keyless commands. */
export function commandKey(args: readonly string[]): string | undefined {
  const name = args[0]?.toUpperCase() ?? '';
  if (SCRIPT_COMMANDS.has(name)) return Number(args[2]) > 0 ? args[3] : undefined;
  if (name === 'XREAD' || name === 'XREADGROUP') {
    const at = args.findIndex((a) => a.toUpperCase() === 'STREAMS');
    return at === -1 ? undefined : args[at + 1];
  }
  if (name === 'XINFO' || name === 'OBJECT' || name === 'MEMORY') return args[2];
  if (name === 'SCAN') {
    const at = args.findIndex((a) => a.toUpperCase() === 'MATCH');
    return at === -1 ? undefined : scanTag(args[at + 1] ?? '');
  }
  if (KEYLESS.has(name)) return undefined;
  return args[1];
}

/** A reply and the connection that gave it: a WAIT after a write must go to that very connection. */
export interface Served {
  readonly reply: unknown;
  readonly connection: RedisClientLike;
}

/**
 * A node-redis cluster client seen as the one-connection RedisClientLike the
 * store uses: each command goes to the master of its key's slot (node-redis
 * follows MOVED and ASK and refreshes the slot map after a failover);
 * server-wide commands go to the masters one by one (masterClients()). Every
 * key of a queue carries the queue's hash tag, so each script runs on one
 * master. With a ReplyClock (commandTimeoutMs), every command is bounded by
 * the silence of the node it waits on.
 */
export class ClusterClient implements RedisClientLike {
  private readonly cluster: ClusterInternals;
  /** Each node client seen as a RedisClientLike (bounded by the clock), made once. */
  private readonly views = new WeakMap<NodeClient, RedisClientLike>();

  constructor(
    cluster: ClusterClientLike,
    private readonly clock?: ReplyClock,
  ) {
    this.cluster = cluster as ClusterInternals;
  }

  /** The same cluster client, its commands bounded by `clock`. */
  bounded(clock: ReplyClock): ClusterClient {
    return new ClusterClient(this.cluster, clock);
  }

  get isOpen(): boolean {
    return this.cluster.isOpen;
  }

  get isReady(): boolean {
    return this.cluster.isReady;
  }

  /** The settings clientOptionProblems() checks, read from the cluster's options (node clients use `defaults`). */
  get options(): { readonly commandOptions?: object; readonly socket?: object } {
    const options = (this.cluster as { readonly _options?: Partial<SpoolClusterOptions> })._options ?? {};
    return { commandOptions: options.commandOptions ?? {}, ...(options.defaults?.socket && { socket: options.defaults.socket }) };
  }

  connect(): Promise<unknown> {
    return this.cluster.connect();
  }

  close(): Promise<unknown> {
    return this.cluster.close();
  }

  destroy(): void {
    this.cluster.destroy();
  }

  duplicate(): ClusterClient {
    return new ClusterClient(this.cluster.duplicate());
  }

  async sendCommand(args: readonly string[]): Promise<unknown> {
    const name = args[0]?.toUpperCase();
    const key = commandKey(args);
    // SCAN keeps a cursor per node: the whole walk must stay on the master of the pattern's tag.
    if (name === 'SCAN' && key !== undefined) return (await this.clientFor(key)).sendCommand(args);
    if (key === undefined) return (await this.anyMaster()).sendCommand(args);
    return (await this.sendServed(args)).reply;
  }

  /**
   * A keyed command, routed as node-redis routes it (MOVED, ASK), with the
   * node client that gave the reply: a script's WAIT goes there, since WAIT
   * counts only the writes of its own connection (after an ASK the script
   * ran on the importing node, and after a slot map refresh the key's
   * master may be another node than the one that ran it).
   */
  async sendServed(args: readonly string[]): Promise<Served> {
    const key = commandKey(args);
    if (key === undefined) {
      const connection = await this.anyMaster();
      return { reply: await connection.sendCommand(args), connection };
    }
    const execute = this.cluster._execute;
    let served: NodeClient | undefined;
    let abandoned = false;
    const run = (node: NodeClient, options: CommandOptions): Promise<unknown> => {
      // A call already given up is not sent again to the node a late MOVED names.
      if (abandoned) return Promise.reject(new Error(`${args[0] ?? 'command'}: given up (commandTimeoutMs)`));
      served = node;
      const reply = node.sendCommand(args, options);
      return this.clock ? this.clock.noting(node, reply) : reply;
    };
    // NOTE: without node-redis's routing hook (a version that renamed it) the key's master is looked up again after the reply.
    const routed = typeof execute === 'function' ? execute.call(this.cluster, { firstKey: key }, false, this.cluster._commandOptions, run) : this.cluster.sendCommand(key, false, [...args]);
    const reply = this.clock
      ? await this.clock.bound(args[0] ?? 'command', () => served, routed, waitAllowance(args), () => (abandoned = true))
      : await routed;
    return { reply, connection: served ? this.view(served) : await this.clientFor(key) };
  }

  /** The connected client of the master that serves `key`'s slot in the current slot map. */
  async clientFor(key: string): Promise<RedisClientLike> {
    return this.view((await this.cluster.getNodeClientForKey(key)) as NodeClient);
  }

  /** A connected client for each master. */
  async masterClients(): Promise<RedisClientLike[]> {
    return Promise.all(this.cluster.masters.map(async (m) => this.view((await this.cluster.nodeClient(m as never)) as NodeClient)));
  }

  private async anyMaster(): Promise<RedisClientLike> {
    const masters = this.cluster.masters;
    const master = masters[Math.floor(Math.random() * masters.length)];
    if (!master) throw new Error('the cluster client knows no master');
    return this.view((await this.cluster.nodeClient(master as never)) as NodeClient);
  }

  /**
   * One node client as RedisClientLike: its commands take the cluster's
   * command options (node clients are made without them, so node-redis's
   * 5 s write timeout would apply) and the clock's bound; its duplicate
   * (verify()'s own connection) takes the same options.
   */
  private view(node: NodeClient): RedisClientLike {
    let view = this.views.get(node);
    if (view) return view;
    const options = this.cluster._commandOptions;
    const clock = this.clock;
    const send = (args: readonly string[]): Promise<unknown> => node.sendCommand(args, options);
    view = {
      get isOpen() {
        return node.isOpen;
      },
      get isReady() {
        return node.isReady;
      },
      connect: () => node.connect(),
      close: () => node.close(),
      destroy: () => node.destroy(),
      duplicate: () => node.duplicate(options && { commandOptions: options }),
      sendCommand: (args) => (clock ? clock.send(node, args, () => send(args)) : send(args)),
      subscribe: (channel, listener) => node.subscribe(channel, listener),
      unsubscribe: (channel, listener) => node.unsubscribe(channel, listener),
      on: (event, listener) => node.on(event, listener),
      off: (event, listener) => node.off(event, listener),
    };
    this.views.set(node, view);
    return view;
  }

  subscribe(channel: string, listener: (message: string, channel: string) => unknown): Promise<unknown> {
    return this.cluster.subscribe(channel, listener);
  }

  unsubscribe(channel: string, listener?: (message: string, channel: string) => unknown): Promise<unknown> {
    return this.cluster.unsubscribe(channel, listener);
  }

  /**
   * 'error' hears the cluster's own errors and each node's ('node-error');
   * 'ready' is any node becoming ready ('node-ready'), which the subscriber
   * takes as "messages may have been missed", as after a reconnect.
   */
  on(event: string, listener: Listener): this {
    for (const name of clusterEvents(event)) this.cluster.on(name, listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    for (const name of clusterEvents(event)) this.cluster.off(name, listener);
    return this;
  }
}

function clusterEvents(event: string): readonly string[] {
  if (event === 'error') return ['error', 'node-error'];
  if (event === 'ready') return ['node-ready'];
  return [event];
}

/** The client of every master of a cluster, or the one client of a single node: server checks and script preloading cover each. */
export async function masterClients(client: RedisClientLike): Promise<RedisClientLike[]> {
  return client instanceof ClusterClient ? client.masterClients() : [client];
}

/**
 * A command and the connection that answered it: on a cluster the node that
 * served it (after MOVED or ASK), on one Redis the client itself.
 */
export async function sendServed(client: RedisClientLike, args: readonly string[]): Promise<Served> {
  return client instanceof ClusterClient ? client.sendServed(args) : { reply: await client.sendCommand(args), connection: client };
}
