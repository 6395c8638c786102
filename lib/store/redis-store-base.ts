import { aclDryRun, readEventStream, readServerReport, roleCommands, type AclRole, type EventStreamInfo, type ServerReport } from './server-report.js';
import { ClusterClient } from './cluster-client.js';
import { placeShards, readShardNames } from './shard-placement.js';
import { stderrLogger } from '../logger.js';
import type { NotifyAdapter, Unsubscribe } from '../notify/notify-adapter.js';
import { RedisNotify, type SubscriberClient } from '../notify/redis-notify.js';
import { CommandConnection, type RedisConnection } from './command-connection.js';
import { noteCarrier } from './announced.js';
import { channels, keyCache, pushList, type Channels, type QueueKeys } from './keys.js';
import { PushReceiver } from './push-receiver.js';
import { mappingUnavailable, type RedisClientLike } from './redis-client.js';
import { grantRedisAccess } from './redis-access.js';
import { RedisFlows } from './redis-flows.js';
import { list, type RawReply } from './reply-values.js';
import { decodeClaimed } from './replies.js';
import { ScriptRunner } from './script-runner.js';
import { fixedKeys, SCRIPTS, type ScriptName } from './scripts.js';
import type { EventReader, JobRecord } from './store.js';
import type { SpoolLogger } from '../logger.js';
import { RedisSchedulers } from './redis-schedulers.js';
import { OutageLog } from './outage-log.js';
import type { AddBatchOutcome, NewJob } from './add-records.js';
import type { TransactionClient } from './transaction.js';
import { resolveStoreConfig, type ConnectOptions, type RedisStoreConfig, type RedisStoreOptions } from './store-options.js';
import { RedisEventReader } from './redis-events.js';
import { scanQueueNames } from './scan-queues.js';
import { ReplicaWait } from './replication.js';
import { ReplyClock } from './reply-clock.js';

/**
 * What RedisStore stands on: the command connection and its lifecycle, the
 * notify adapter, key names, and running a script of lua/ for a queue (the
 * channels and queue name every queue script takes, announcements carried
 * to a notify adapter that is not Redis pub/sub). RedisStore adds the Store's
 * operations on top.
 */
export class RedisStoreBase implements AsyncDisposable {
  /** First part of every key's hash tag. */
  readonly prefix: string;
  readonly notify: NotifyAdapter;
  readonly schedulers: RedisSchedulers = new RedisSchedulers({
    run: (name, queue, args, id) => this.run(name, queue, args, id),
    client: (what) => this.call(what),
    keysOf: (queue) => this.keysOf(queue),
  });
  private readonly ownsNotify: boolean;
  /** Workers' push receivers, each on a connection of its own: a disconnect closes those still open. */
  private readonly receivers = new Set<PushReceiver>();
  private readonly connection: CommandConnection;
  private readonly runner: ScriptRunner;
  private readonly channels: Channels;
  protected readonly flows: RedisFlows;
  private readonly keys: (queue: string) => QueueKeys;
  /** Set when the notify adapter carries messages itself (not Redis pub/sub). */
  private readonly carryNotes: ((script: string, raw: RawReply) => RawReply) | undefined;

  private readonly logger: SpoolLogger;

  /** Turns an outage into a few log lines; workers of this store report their failed calls here. */
  readonly outage: OutageLog;
  /**
   * add() in the caller's PostgreSQL transaction, through the outbox given
   * as option `outbox`; undefined without one (the engine then refuses `{ tx }`).
   */
  readonly addInTransaction: ((queue: string, jobs: readonly NewJob[], tx: TransactionClient) => Promise<AddBatchOutcome>) | undefined;

  /** `new RedisStore({ url, prefix })`; the older `new RedisStore({ url }, { prefix })` means the same. */
  constructor(config: RedisStoreConfig);
  constructor(connection: RedisConnection, options?: RedisStoreOptions);
  constructor(first: RedisStoreConfig, options: RedisStoreOptions = {}) {
    const config = resolveStoreConfig(first, options);
    const prefix = config.prefix;
    this.prefix = prefix;
    this.keys = keyCache(prefix);
    const logger = config.logger ?? stderrLogger;
    this.logger = logger;
    const clock = new ReplyClock(config.commandTimeoutMs);
    // Back once connected and answering: a server that stopped answering (SIGSTOP) keeps its socket ready.
    this.outage = new OutageLog(logger, config.outageLogInterval, (since) => this.connection.ready && clock.answeredSince(since));
    this.channels = channels(prefix);
    this.runner = new ScriptRunner(() => this.command('script'), {
      transientRetryMs: config.transientRetryMs,
      ...(config.durability === 'replicated' && { replicaWait: new ReplicaWait(config.replicationTimeoutMs, logger) }),
    });
    this.connection = new CommandConnection(config.connection, this.runner, logger, config.requireNoEviction, this.outage, clock);
    this.flows = new RedisFlows({ run: (...a) => this.run(...a), call: (what) => this.call(what), keysOf: (queue) => this.keysOf(queue) }, logger);
    grantRedisAccess(this, { command: (what) => this.command(what), keysOf: (queue) => this.keysOf(queue), flows: this.flows });
    this.ownsNotify = config.notify === undefined;
    this.notify =
      config.notify ??
      new RedisNotify({
        schedChannel: this.channels.sched,
        owlsChannel: this.channels.owls,
        doneChannel: this.channels.done,
        createSubscriber: () => this.command('subscribe').duplicate() as unknown as SubscriberClient,
        logger,
        onLost: (err) => this.outage.lost(`subscriber connection: ${err.message}`),
      });
    this.carryNotes = noteCarrier(this.notify);
    const outbox = config.outbox;
    this.addInTransaction = outbox === undefined ? undefined : (queue, jobs, tx) => outbox.write(queue, jobs, tx);
  }

  /**
   * Opens the command connection (when the store owns it) and checks the
   * server. Without `{ wait: true }` an unreachable Redis fails at once with
   * RedisUnavailableError. Idempotent.
   */
  connect(options: ConnectOptions = {}): Promise<void> {
    return this.connection.connect(options.wait ?? false);
  }

  /**
   * Jobs an add leased straight to this idle worker (lua/includes/push), from
   * its push list (pushList), popped on a connection of its own
   * (PushReceiver); undefined when wake-ups travel another way (a notify
   * adapter passed in, e.g. NATS): the worker claims instead. Unsubscribing
   * takes what the list still holds first (call it after stopPushes).
   */
  async onPushed(queue: string, workerId: string, listener: (jobs: JobRecord[]) => void): Promise<Unsubscribe | undefined> {
    if (!this.ownsNotify || !(this.notify instanceof RedisNotify)) return undefined;
    const key = pushList(this.keysOf(queue), workerId);
    const take = (message: string): void => {
      let jobs: JobRecord[];
      try {
        jobs = decodeClaimed('push', list('push', JSON.parse(message) as RawReply));
      } catch (err) {
        // Not ours to drop: the jobs are leased to this worker and come back when their leases expire.
        this.logger.error(`a push to worker ${workerId} of queue "${queue}" could not be read`, err);
        return;
      }
      listener(jobs);
    };
    const denied = (err: unknown): void => this.logger.warn(`worker ${workerId} of queue "${queue}" may not BLPOP its push list (add +blpop to its ACL user): it claims its jobs instead: ${err instanceof Error ? err.message : String(err)}`);
    const receiver = await PushReceiver.open(this.call('onPushed').duplicate(), key, (args) => this.call('onPushed').sendCommand(args), take, denied);
    if (!receiver) return undefined;
    this.receivers.add(receiver);
    return async () => {
      this.receivers.delete(receiver);
      await receiver.stop();
    };
  }

  /** The worker takes no more pushes: drops its name (push-off.lua) before it stops listening. */
  async stopPushes(queue: string, workerId: string): Promise<void> {
    await this.run('pushOff', queue, [workerId]);
  }

  /** Closes what the store opened: its subscriber, and its client when it created it. Idempotent. */
  async disconnect(): Promise<void> {
    if (this.connection.closed) return;
    this.outage.close();
    await this.connection.stop();
    // A worker still running when its store disconnects: its pushes come back when their leases expire.
    for (const receiver of this.receivers) receiver.abandon();
    this.receivers.clear();
    if (this.ownsNotify) await this.notify.close();
    await this.connection.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /** Bounds the store's commands (commandTimeoutMs). */
  protected get replyClock(): ReplyClock {
    return this.connection.clock;
  }

  /** The command connection; throws a clear error before connect() or after disconnect(). Tests reach it through redisAccess(). */
  protected command(what: string): RedisClientLike {
    return this.connection.get(what);
  }

  /** The physical queues of a queue sharded over `count` (placed once, then read back). */
  placeShards(queue: string, count: number): Promise<readonly string[]> {
    return placeShards(this.command('placing shards'), this.prefix, queue, count);
  }

  /** How many shards `queue` was placed on, undefined when it never was sharded (reads the placement, writes nothing). */
  async shardCount(queue: string): Promise<number | undefined> {
    return (await readShardNames(this.call('reading a shard placement'), this.prefix, queue))?.length;
  }

  /** One PING round trip, in ms, for readiness checks; RedisUnavailableError (or StoreNotConnectedError) when it cannot answer. */
  async ping(): Promise<number> {
    const started = performance.now();
    await this.call('ping()').sendCommand(['PING']);
    return performance.now() - started;
  }

  /** What the server says about itself (version, memory and policy, clients, keys, time, cluster nodes): a fixed handful of commands. */
  serverReport(): Promise<ServerReport> {
    return readServerReport(this.call('serverReport()'), this.command('serverReport()') instanceof ClusterClient);
  }

  /**
   * What ACL user `user` may not do of what `role` needs on `queue`'s keys and
   * channels (ACL DRYRUN): one line per refused command, none when all are
   * allowed. Rejects with the server's ErrorReply when this connection may not ask.
   */
  async aclCheck(user: string, role: AclRole, queue: string): Promise<string[]> {
    const client = this.call('aclCheck()');
    const refused: string[] = [];
    for (const args of roleCommands(role, this.keysOf(queue), this.channels, this.prefix)) {
      const why = await aclDryRun(client, user, args);
      if (why !== null) refused.push(`${args[0]}: ${why}`);
    }
    return refused;
  }

  /** A request waits a minute at most: a worker gone meanwhile never takes it. */
  async requestWorker(queue: string, id: string, paused: boolean): Promise<void> {
    await this.call('requestWorker()').sendCommand(['SET', this.keysOf(queue).workerRequest(id), paused ? '1' : '0', 'PX', '60000']);
  }

  async takeWorkerRequest(queue: string, id: string): Promise<boolean | null> {
    const reply = await this.call('takeWorkerRequest()').sendCommand(['GETDEL', this.keysOf(queue).workerRequest(id)]);
    return reply === null || reply === undefined ? null : String(reply) === '1';
  }

  /** The queue's event stream: length, the maxLen it is trimmed to, and its oldest entry's time. */
  eventStream(queue: string): Promise<EventStreamInfo> {
    const keys = this.keysOf(queue);
    return readEventStream(this.call('eventStream()'), keys.events, keys.meta);
  }

  /** The command connection for one of the store's own calls: Redis being unreachable surfaces as RedisUnavailableError. */
  protected call(what: string): RedisClientLike {
    return mappingUnavailable(this.command(what), what);
  }

  protected keysOf(queue: string): QueueKeys {
    return this.keys(queue);
  }

  protected run(name: ScriptName, queue: string, args: readonly (string | number)[], jobId?: string, extraKeys: readonly string[] = []): Promise<RawReply> {
    const descriptor = SCRIPTS[name];
    const keys = fixedKeys(descriptor, this.keysOf(queue), jobId);
    // No sched channel: the script collects its announcements for the adapter (includes/announce).
    const carry = descriptor.queue && this.runner.announces(name) ? this.carryNotes : undefined;
    const argv = descriptor.queue ? [this.carryNotes ? '' : this.channels.sched, this.channels.owls, queue, ...args] : args;
    const reply = this.runner.run(name, keys, argv, extraKeys);
    return carry ? reply.then((raw) => carry(name, raw)) : reply;
  }

  openEvents(queue: string): EventReader {
    return new RedisEventReader(() => this.call('openEvents').duplicate(), this.keysOf(queue).events);
  }

  listQueues(): Promise<string[]> {
    return scanQueueNames(this.command('listQueues'), this.prefix);
  }
}
