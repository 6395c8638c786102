import { stderrLogger, type SpoolLogger } from '../logger.js';
import type { NotifyAdapter } from '../notify/notify-adapter.js';
import { RedisNotify, type SubscriberClient } from '../notify/redis-notify.js';
import { CommandConnection, type RedisConnection } from './command-connection.js';
import { FLOW_SWEEP_GRACE_MS } from './flow-intents.js';
import { channels, indexKey, queueKeys, type Channels, type QueueKeys } from './keys.js';
import { mappingUnavailable, type RedisClientLike } from './redis-client.js';
import { RedisFlows } from './redis-flows.js';
import {
  decodeAdd, decodeCancel, decodeChildren, decodeClaim, decodeComplete, decodeCount, decodeCounts, decodeExtend,
  decodeFail, decodeFlag, decodeGroup, decodeHash, decodeJob, decodeLimits, decodeLog, decodePromote, decodeReap,
  decodeRelease, decodeRedrive, decodeRemove, decodeStrings, decodeWatch, type RawReply,
} from './replies.js';
import { addArgs, claimArgs, completeArgs, configureArgs, extendArgs, groupLimitArgs } from './script-args.js';
import { ScriptRunner } from './script-runner.js';
import { fixedKeys, SCRIPTS, type ScriptName } from './scripts.js';
import type {
  AddBatchOutcome, AddFlowOutcome, ChildrenRecord, DeliverOutcome, NewFlowNode, RedriveOutcome, RemoveOutcome,
  CancelOutcome, ClaimOutcome, CompleteOutcome, ExtendOutcome, Failure, FailOutcome, Fetch, GroupLimits, GroupState,
  JobCounts, JobRecord, JobState, Lease, NewJob, PromoteOutcome, QueueLimits, ReapOutcome, ReleaseOutcome, Store,
} from './store.js';
import { verifyQueue } from './verify.js';
import { RedisSchedulers } from './redis-schedulers.js';
import { OutageLog } from './outage-log.js';
import { resolveStoreConfig, type ConnectOptions, type RedisStoreConfig, type RedisStoreOptions } from './store-options.js';
import { promoteBatch, purgeStep, readPage, redriveBatch, type RunScript } from './ops-store.js';
import { RedisEventReader } from './redis-events.js';
import { scanQueueNames } from './scan-queues.js';
import type { EventReader, MetricsRecord, Page, PageQuery, PurgeQuery, PurgeStep, RedriveManyOutcome } from './store.js';
import { decodeMetrics } from './metrics-reply.js';

export type { RedisConnection } from './command-connection.js';
export type { ConnectOptions, RedisStoreConfig, RedisStoreOptions } from './store-options.js';

/**
 * Jobs in Redis 7+: every transition is one script of lua/, keys are
 * hash-tagged per queue, wake-ups go through one subscriber connection.
 *
 * @example
 * const store = new RedisStore({ url: 'redis://127.0.0.1:6379', prefix: 'app' });
 * await store.connect();
 * // ... new Queue('emails', { store }) ...
 * await store.disconnect();
 */
export class RedisStore implements Store, AsyncDisposable {
  /** First part of every key's hash tag. */
  readonly prefix: string;
  readonly notify: NotifyAdapter;
  readonly schedulers: RedisSchedulers = new RedisSchedulers({
    run: (name, queue, args, id) => this.run(name, queue, args, id),
    client: (what) => this.call(what),
    keysOf: (queue) => this.keysOf(queue),
  });
  private readonly ownsNotify: boolean;
  private readonly connection: CommandConnection;
  private readonly runner: ScriptRunner;
  private readonly channels: Channels;
  private readonly flows: RedisFlows;
  private readonly keys = new Map<string, QueueKeys>();

  /** Turns an outage into a few log lines; workers of this store report their failed calls here. */
  readonly outage: OutageLog;

  /** `new RedisStore({ url, prefix })`; the older `new RedisStore({ url }, { prefix })` means the same. */
  constructor(config: RedisStoreConfig);
  constructor(connection: RedisConnection, options?: RedisStoreOptions);
  constructor(first: RedisStoreConfig, options: RedisStoreOptions = {}) {
    const config = resolveStoreConfig(first, options);
    const prefix = config.prefix;
    this.prefix = prefix;
    const logger = config.logger ?? stderrLogger;
    this.outage = new OutageLog(logger, config.outageLogInterval, () => this.connection.ready);
    this.channels = channels(prefix);
    this.runner = new ScriptRunner(() => this.command('script'), { transientRetryMs: config.transientRetryMs });
    this.connection = new CommandConnection(config.connection, this.runner, logger, config.requireNoEviction, this.outage);
    this.flows = new RedisFlows({ run: (...a) => this.run(...a), call: (what) => this.call(what), keysOf: (queue) => this.keysOf(queue) }, logger);
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
  }

  /**
   * Opens the command connection (when the store owns it) and checks the
   * server. Without `{ wait: true }` an unreachable Redis fails at once with
   * RedisUnavailableError. Idempotent.
   */
  connect(options: ConnectOptions = {}): Promise<void> {
    return this.connection.connect(options.wait ?? false);
  }

  /** Closes what the store opened: its subscriber, and its client when it created it. Idempotent. */
  async disconnect(): Promise<void> {
    if (this.connection.closed) return;
    this.outage.close();
    await this.connection.stop();
    if (this.ownsNotify) await this.notify.close();
    await this.connection.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /** The command connection; throws a clear error before connect() or after disconnect(). */
  command(what: string): RedisClientLike {
    return this.connection.get(what);
  }

  /** One PING round trip, in ms, for readiness checks; RedisUnavailableError (or StoreNotConnectedError) when it cannot answer. */
  async ping(): Promise<number> {
    const started = performance.now();
    await this.call('ping()').sendCommand(['PING']);
    return performance.now() - started;
  }

  /** The command connection for one of the store's own calls: Redis being unreachable surfaces as RedisUnavailableError. */
  private call(what: string): RedisClientLike {
    return mappingUnavailable(this.command(what), what);
  }

  keysOf(queue: string): QueueKeys {
    let keys = this.keys.get(queue);
    if (!keys) {
      keys = queueKeys(this.prefix, queue);
      this.keys.set(queue, keys);
    }
    return keys;
  }

  private run(name: ScriptName, queue: string, args: readonly (string | number)[], jobId?: string, extraKeys: readonly string[] = []): Promise<RawReply> {
    const descriptor = SCRIPTS[name];
    const keys = fixedKeys(descriptor, this.keysOf(queue), jobId);
    const argv = descriptor.queue ? [this.channels.sched, this.channels.owls, queue, ...args] : args;
    return this.runner.run(name, keys, argv, extraKeys);
  }

  async add(queue: string, jobs: readonly NewJob[]): Promise<AddBatchOutcome> {
    const k = this.keysOf(queue);
    const jobKeys: string[] = [];
    for (const job of jobs) {
      const jobKey = k.job(job.id);
      jobKeys.push(jobKey, job.dedup ? k.dedup(job.dedup.key) : jobKey);
    }
    return decodeAdd(await this.run('add', queue, addArgs(jobs), undefined, jobKeys));
  }

  async claim(queue: string, fetch: Fetch): Promise<ClaimOutcome> {
    return decodeClaim(await this.run('claim', queue, claimArgs(fetch)));
  }

  async complete(queue: string, lease: Lease, result: string, fetch: Fetch, durationMs?: number): Promise<CompleteOutcome> {
    const outcome = decodeComplete(await this.run('complete', queue, completeArgs(lease, result, fetch, durationMs), lease.id));
    if (lease.child && (outcome.status === 'completed' || outcome.status === 'cancelled')) await this.flows.tellParent(queue, lease.id);
    return outcome;
  }

  async fail(queue: string, lease: Lease, f: Failure): Promise<FailOutcome> {
    const args = [lease.id, lease.token, f.retryDelay, f.reason, f.message, f.stack, f.code];
    const outcome = decodeFail(await this.run('fail', queue, args, lease.id));
    if (lease.child && outcome.status === 'moved' && (outcome.state === 'failed' || outcome.state === 'cancelled')) await this.flows.tellParent(queue, lease.id);
    return outcome;
  }

  async throttle(queue: string, lease: Lease, retryAfter: number): Promise<FailOutcome> {
    return decodeFail(await this.run('throttle', queue, [lease.id, lease.token, retryAfter], lease.id));
  }

  async extend(queue: string, lockMs: number, leases: readonly Lease[]): Promise<ExtendOutcome[]> {
    if (leases.length === 0) return [];
    const k = this.keysOf(queue);
    return decodeExtend(await this.run('extend', queue, extendArgs(lockMs, leases), undefined, leases.map((l) => k.job(l.id))));
  }

  async release(queue: string, lease: Lease): Promise<ReleaseOutcome> {
    return decodeRelease(await this.run('release', queue, [lease.id, lease.token], lease.id));
  }

  async promote(queue: string, limit: number): Promise<PromoteOutcome> {
    return decodePromote(await this.run('promote', queue, [limit]));
  }

  async reap(queue: string, maxStalled: number, limit: number): Promise<ReapOutcome[]> {
    return decodeReap(await this.run('reap', queue, [maxStalled, limit]));
  }

  async cancel(queue: string, id: string): Promise<CancelOutcome> {
    const outcome = decodeCancel(await this.run('cancel', queue, [id], id));
    // A flow child cancelled here tells its parent now (the housekeeping sweep would, later).
    if (outcome.status === 'cancelled') await this.flows.deliver(queue, id);
    return outcome;
  }

  async progress(queue: string, lease: Lease, progress: string): Promise<boolean> {
    return decodeFlag('progress', await this.run('progress', queue, [lease.token, progress], lease.id));
  }

  async log(queue: string, lease: Lease, line: string, keep: number): Promise<number | null> {
    return decodeLog(await this.run('log', queue, [lease.token, line, keep], lease.id));
  }

  async pause(queue: string): Promise<boolean> {
    return decodeFlag('pause', await this.run('pause', queue, []));
  }

  async resume(queue: string): Promise<boolean> {
    return decodeFlag('resume', await this.run('resume', queue, []));
  }

  async pauseNames(queue: string, names: readonly string[]): Promise<number> {
    return decodeCount('pause-names', await this.run('pauseNames', queue, names));
  }

  /** Moves parked jobs back 1,000 per call, so no single call blocks Redis for long. */
  async resumeNames(queue: string, names: readonly string[]): Promise<void> {
    while (decodeCount('resume-names', await this.run('resumeNames', queue, [1000, ...names])) > 0);
  }

  async pauseGroup(queue: string, group: string): Promise<boolean> {
    return decodeFlag('pause-group', await this.run('pauseGroup', queue, [group]));
  }

  async resumeGroup(queue: string, group: string): Promise<boolean> {
    return decodeFlag('resume-group', await this.run('resumeGroup', queue, [group]));
  }

  async setGroupLimits(queue: string, group: string, limits: GroupLimits): Promise<void> {
    await this.run('groupLimits', queue, groupLimitArgs(group, limits));
  }

  async configure(queue: string, limits: QueueLimits): Promise<void> {
    const pairs = configureArgs(limits);
    if (pairs.length) await this.run('configure', queue, pairs);
  }

  async isPaused(queue: string): Promise<boolean> {
    return decodeFlag('HEXISTS', (await this.call('isPaused').sendCommand(['HEXISTS', this.keysOf(queue).meta, 'paused'])) as RawReply);
  }

  async getJob(queue: string, id: string): Promise<JobRecord | null> {
    const hash = decodeHash((await this.call('getJob').sendCommand(['HGETALL', this.keysOf(queue).job(id)])) as RawReply);
    return Object.keys(hash).length === 0 ? null : decodeJob(id, hash);
  }

  async getLogs(queue: string, id: string): Promise<string[]> {
    return decodeStrings('LRANGE', (await this.call('getLogs').sendCommand(['LRANGE', this.keysOf(queue).logs(id), '0', '-1'])) as RawReply);
  }

  async getOnce(queue: string, key: string): Promise<string | null> {
    return (await this.call('getOnce').sendCommand(['GET', this.keysOf(queue).once(key)])) as string | null;
  }

  async setOnce(queue: string, key: string, outcome: string, ttlMs: number): Promise<void> {
    await this.call('setOnce').sendCommand(['SET', this.keysOf(queue).once(key), outcome, 'PX', String(ttlMs)]);
  }

  async getCounts(queue: string): Promise<JobCounts> {
    return decodeCounts(await this.run('counts', queue, []));
  }

  async getMetrics(queue: string): Promise<MetricsRecord> {
    const [counts, raw] = await Promise.all([this.getCounts(queue), this.run('metrics', queue, [])]);
    return decodeMetrics(counts, raw);
  }

  async pausedNames(queue: string): Promise<string[]> {
    return decodeStrings('SMEMBERS', (await this.call('pausedNames').sendCommand(['SMEMBERS', this.keysOf(queue).pausedNames])) as RawReply);
  }

  async getLimits(queue: string): Promise<QueueLimits> {
    return decodeLimits((await this.call('getLimits').sendCommand(['HMGET', this.keysOf(queue).meta, 'rl', 'gcap', 'grl', 'mw', 'mwg', 'ev'])) as RawReply);
  }

  async getGroup(queue: string, group: string): Promise<GroupState> {
    const k = this.keysOf(queue);
    const client = this.call('getGroup');
    const [fields, waiting] = await Promise.all([
      client.sendCommand(['HMGET', k.group(group), 'paused', 'active', 'cap', 'rl']) as Promise<RawReply>,
      client.sendCommand(['ZCARD', k.groupWait(group)]) as Promise<RawReply>,
    ]);
    return decodeGroup(group, fields, waiting);
  }

  async listIds(queue: string, state: JobState, start: number, end: number): Promise<string[]> {
    const key = indexKey(this.keysOf(queue), state);
    return decodeStrings('ZRANGE', (await this.call('listIds').sendCommand(['ZRANGE', key, String(start), String(end)])) as RawReply);
  }

  async verify(queue: string): Promise<string[]> {
    return verifyQueue(this.call('verify'), this.keysOf(queue));
  }

  /**
   * Adds a flow across queues in two steps per queue (see RedisFlows.add).
   * `stopAfter` is for crash tests only: it stops where a dying producer would.
   */
  addFlow(nodes: readonly NewFlowNode[], stopAfter?: 'write' | 'decide'): Promise<AddFlowOutcome> {
    return this.flows.add(nodes, stopAfter);
  }

  /**
   * Settles the flow adds whose producer stopped between the two steps in
   * this queue: parts older than `graceMs` follow the flow's decision, which
   * becomes discard when the producer never made one. Returns how many parts.
   */
  sweepFlows(queue: string, graceMs: number = FLOW_SWEEP_GRACE_MS): Promise<number> {
    return this.flows.sweep(queue, graceMs);
  }

  /** Delivers the notification a finished child left in its queue's outbox, if any, and on up the tree. Idempotent. */
  deliverToParent(queue: string, childId: string): Promise<DeliverOutcome> {
    return this.flows.deliver(queue, childId);
  }

  /** Delivers up to `limit` notifications left in a queue's outbox (a crash between the two steps); returns how many. */
  sweepOutbox(queue: string, limit: number): Promise<number> {
    return this.flows.sweepOutbox(queue, limit);
  }

  /** The outbox first; once it is empty, the flow adds a crashed producer left uncommitted. */
  async housekeep(queue: string, limit: number): Promise<number> {
    const delivered = await this.flows.sweepOutbox(queue, limit);
    if (delivered < limit) await this.flows.sweep(queue, FLOW_SWEEP_GRACE_MS);
    return delivered;
  }

  async getChildren(queue: string, id: string): Promise<ChildrenRecord> {
    const k = this.keysOf(queue);
    const client = this.call('getChildren');
    const [pending, results, failures] = await Promise.all([
      client.sendCommand(['SMEMBERS', k.deps(id)]) as Promise<RawReply>,
      client.sendCommand(['HGETALL', k.results(id)]) as Promise<RawReply>,
      client.sendCommand(['HGETALL', k.failures(id)]) as Promise<RawReply>,
    ]);
    return decodeChildren(decodeStrings('SMEMBERS', pending), decodeHash(results), decodeHash(failures));
  }

  /** A flow parent dead-lettered because of this child hears that it is back. */
  async redrive(queue: string, id: string): Promise<RedriveOutcome> {
    const outcome = decodeRedrive(await this.run('redrive', queue, [id], id));
    if (outcome.status === 'redriven') await this.flows.deliver(queue, id);
    return outcome;
  }

  async remove(queue: string, id: string): Promise<RemoveOutcome> {
    return decodeRemove(await this.run('remove', queue, [id], id));
  }

  async watch(queue: string, id: string): Promise<JobState | null> {
    return decodeWatch(await this.run('watch', queue, [], id));
  }

  // Operations on many jobs and the event stream: lib/store/ops-store.ts, redis-events.ts.
  private readonly runOps: RunScript = (name, queue, args, extraKeys) => this.run(name, queue, args, undefined, extraKeys);

  page(queue: string, query: PageQuery): Promise<Page> {
    return readPage(this.runOps, queue, this.keysOf(queue), query);
  }

  purge(queue: string, query: PurgeQuery): Promise<PurgeStep> {
    return purgeStep(this.runOps, queue, this.keysOf(queue), query);
  }

  /** A flow parent dead-lettered by one of these children resumes before this resolves, as with a single redrive. */
  async redriveMany(queue: string, ids: readonly string[], options: { readonly resetAttempts: boolean; readonly delay: number }): Promise<RedriveManyOutcome> {
    const outcome = await redriveBatch(this.runOps, queue, this.keysOf(queue), ids, options);
    for (const id of outcome.withParent) await this.flows.deliver(queue, id);
    return outcome;
  }

  promoteJobs(queue: string, ids: readonly string[]): Promise<number> {
    return promoteBatch(this.runOps, queue, ids);
  }

  openEvents(queue: string): EventReader {
    return new RedisEventReader(this.call('openEvents').duplicate(), this.keysOf(queue).events);
  }

  listQueues(): Promise<string[]> {
    return scanQueueNames(this.call('listQueues'), this.prefix);
  }
}
