import { InvalidArgumentError } from '../engine/errors.js';
import { assertKnownKeys, assertPlainObject } from '../engine/options.js';
import { randomBytes } from 'node:crypto';
import { stderrLogger, type SpoolLogger } from '../logger.js';
import type { NotifyAdapter } from '../notify/notify-adapter.js';
import { RedisNotify, type SubscriberClient } from '../notify/redis-notify.js';
import { FlowAddAbandonedError, RedisUnavailableError, StoreNotConnectedError } from './errors.js';
import { decideFlow, decodeIntent, encodeIntent, FLOW_SWEEP_GRACE_MS, type FlowDecision } from './flow-intents.js';
import { channels, indexKey, queueKeys, type Channels, type QueueKeys } from './keys.js';
import { clientOptionProblems, createSpoolClient, mappingUnavailable, type RedisClientLike } from './redis-client.js';
import {
  decodeAdd,
  decodeAddFlow,
  decodeCancel,
  decodeChildren,
  decodeClaim,
  decodeComplete,
  decodeExtend,
  decodeFail,
  decodeHash,
  decodeJob,
  decodePromote,
  decodeReap,
  decodeRelease,
  decodeRedrive,
  decodeRemove,
  encodeChildRef,
  type RawReply,
} from './replies.js';
import { ScriptRunner } from './script-runner.js';
import { fixedKeys, SCRIPTS, type ScriptName } from './scripts.js';
import { checkServer } from './server-checks.js';
import type {
  AddBatchOutcome,
  AddFlowOutcome,
  ChildrenRecord,
  DeliverOutcome,
  NewFlowNode,
  RedriveOutcome,
  RemoveOutcome,
  CancelOutcome,
  ClaimOutcome,
  CompleteOutcome,
  ExtendOutcome,
  Failure,
  FailOutcome,
  Fetch,
  GroupLimits,
  GroupState,
  JobCounts,
  JobRecord,
  JobState,
  Lease,
  NewJob,
  PromoteOutcome,
  QueueLimits,
  RateLimit,
  ReapOutcome,
  ReleaseOutcome,
  Store,
} from './store.js';
import { verifyQueue } from './verify.js';
import { RedisSchedulers } from './redis-schedulers.js';

/** How the store reaches Redis: a URL (the store owns the client) or your connected client (it stays yours). */
export type RedisConnection = { readonly url: string } | { readonly client: RedisClientLike };

export interface RedisStoreOptions {
  /** First part of every key's hash tag: `{prefix:queue}`. Default `spool`. */
  readonly prefix?: string;
  readonly logger?: SpoolLogger;
  /** Refuse to connect (UnsupportedServerError) when maxmemory-policy is not noeviction, instead of warning. Default false. */
  readonly requireNoEviction?: boolean;
  /** How long scripts refused with LOADING / BUSY / TRYAGAIN / MASTERDOWN are retried before failing, in ms. Default 10,000. */
  readonly transientRetryMs?: number;
}

export interface ConnectOptions {
  /**
   * false (default, for producers): fail at once with RedisUnavailableError
   * when Redis cannot be reached. true (for workers): keep trying, with capped
   * backoff, until Redis answers; warnings are logged meanwhile.
   */
  readonly wait?: boolean;
}

const PREFIX_PATTERN = /^[^{}\s]{1,64}$/;
const STORE_OPTIONS = ['prefix', 'logger', 'requireNoEviction', 'transientRetryMs'];

/** Typos and wrong shapes fail at construction, like Queue and Worker options, naming the field. */
function checkStoreArguments(connection: unknown, options: unknown): void {
  assertPlainObject(connection, 'RedisStore connection');
  const url = 'url' in connection ? connection.url : undefined;
  if (!('client' in connection) && typeof url !== 'string') {
    throw new InvalidArgumentError('RedisStore connection', 'needs a url or a client', "pass { url: 'redis://host:6379' } or { client } (a node-redis client)");
  }
  assertPlainObject(options, 'RedisStore options');
  assertKnownKeys(options, STORE_OPTIONS, 'RedisStore options');
}

/**
 * Jobs in Redis 7+: every transition is one script of lua/, keys are
 * hash-tagged per queue, wake-ups go through one subscriber connection.
 *
 * @example
 * const store = new RedisStore({ url: 'redis://127.0.0.1:6379' });
 * await store.connect();
 * // ... new Queue('emails', { store }) ...
 * await store.disconnect();
 */
export class RedisStore implements Store, AsyncDisposable {
  readonly prefix: string;
  readonly notify: NotifyAdapter;
  readonly schedulers: RedisSchedulers = new RedisSchedulers({
    run: (name, queue, args, id) => this.run(name, queue, args, id),
    client: (what) => this.call(what),
    keysOf: (queue) => this.keysOf(queue),
  });
  private readonly logger: SpoolLogger;
  private readonly ownsClient: boolean;
  private client: RedisClientLike | undefined;
  private readonly runner: ScriptRunner;
  private readonly channels: Channels;
  private readonly keys = new Map<string, QueueKeys>();
  private state: 'new' | 'connected' | 'closed' = 'new';
  private connecting: Promise<void> | undefined;
  /** The client connect() is opening, so disconnect() can end a wait for Redis. */
  private opening: RedisClientLike | undefined;
  private readonly requireNoEviction: boolean;

  constructor(private readonly connection: RedisConnection, options: RedisStoreOptions = {}) {
    checkStoreArguments(connection, options);
    const prefix = options.prefix ?? 'spool';
    if (!PREFIX_PATTERN.test(prefix)) {
      throw new InvalidArgumentError('RedisStore options.prefix', `"${prefix}" is invalid`, 'use 1-64 characters without braces or spaces');
    }
    this.prefix = prefix;
    this.logger = options.logger ?? stderrLogger;
    this.ownsClient = 'url' in connection;
    this.channels = channels(prefix);
    this.requireNoEviction = options.requireNoEviction ?? false;
    this.runner = new ScriptRunner(() => this.command('script'), { transientRetryMs: options.transientRetryMs });
    this.notify = new RedisNotify({
      schedChannel: this.channels.sched,
      owlsChannel: this.channels.owls,
      doneChannel: this.channels.done,
      createSubscriber: () => this.command('subscribe').duplicate() as unknown as SubscriberClient,
      consumeHint: (queue, max) => this.consumeHint(queue, max),
      logger: this.logger,
    });
  }

  /**
   * Opens the command connection (when the store owns it) and checks the
   * server. Without `{ wait: true }` an unreachable Redis fails at once with
   * RedisUnavailableError. Idempotent.
   */
  connect(options: ConnectOptions = {}): Promise<void> {
    if (this.state === 'connected') return Promise.resolve();
    if (this.state === 'closed') return Promise.reject(new StoreNotConnectedError('connect()'));
    this.connecting ??= this.open(options.wait ?? false).finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(wait: boolean): Promise<void> {
    const client = 'url' in this.connection ? createSpoolClient(this.connection.url) : this.connection.client;
    for (const problem of clientOptionProblems(client)) this.logger.warn(`RedisStore client: ${problem}`);
    let failing = false;
    const onError = (err: Error): void => {
      if (!failing) this.logger.warn(`Redis connection lost: ${err.message}; reconnecting`);
      failing = true;
    };
    const onReady = (): void => {
      failing = false;
    };
    if (!client.isOpen) {
      this.opening = client;
      try {
        await (wait ? this.openWaiting(client) : openOnce(client));
      } catch (err) {
        if (this.ownsClient) client.destroy();
        throw new RedisUnavailableError('RedisStore connect()', err);
      } finally {
        this.opening = undefined;
      }
    }
    if (this.ownsClient) {
      client.on('error', onError);
      client.on('ready', onReady);
    }
    try {
      await checkServer(client, this.logger, { requireNoEviction: this.requireNoEviction });
      // Not fatal: a store connects under OOM too (SCRIPT LOAD may be refused), and calls fall back to EVAL.
      await this.runner.preload(client).catch((err: unknown) => this.logger.warn(`RedisStore: could not preload scripts (${String(err)}); they load on first use`));
    } catch (err) {
      if (this.ownsClient) {
        client.off('error', onError);
        client.destroy();
      }
      throw err;
    }
    if (this.state === 'closed') {
      if (this.ownsClient) client.destroy();
      throw new StoreNotConnectedError('connect()');
    }
    this.client = client;
    this.state = 'connected';
  }

  /** Connects, riding out refused connections with the client's own capped backoff. */
  private async openWaiting(client: RedisClientLike): Promise<void> {
    let told = false;
    const onError = (err: Error): void => {
      if (!told) this.logger.warn(`Redis is unreachable (${err.message}); waiting for it to come up`);
      told = true;
    };
    client.on('error', onError);
    try {
      await client.connect();
    } finally {
      client.off('error', onError);
    }
  }

  /** Closes what the store opened: its subscriber, and its client when it created it. Idempotent. */
  async disconnect(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    if (this.connecting && this.ownsClient) {
      this.opening?.destroy();
      await this.connecting.catch(() => undefined);
    }
    await this.notify.close();
    const client = this.client;
    this.client = undefined;
    if (client && this.ownsClient && client.isOpen) await client.close().catch(() => client.destroy());
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.disconnect();
  }

  /** The command connection; throws a clear error before connect() or after disconnect(). */
  command(what: string): RedisClientLike {
    if (this.state !== 'connected' || !this.client) throw new StoreNotConnectedError(what);
    return this.client;
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
    const args: (string | number)[] = [jobs.length];
    for (const job of jobs) {
      const jobKey = k.job(job.id);
      jobKeys.push(jobKey, job.dedup ? k.dedup(job.dedup.key) : jobKey);
      args.push(job.id, job.name, job.data, job.opts, packAddOptions(job));
    }
    return decodeAdd(await this.run('add', queue, args, undefined, jobKeys));
  }

  async claim(queue: string, fetch: Fetch): Promise<ClaimOutcome> {
    return decodeClaim(await this.run('claim', queue, [fetch.workerId, fetch.count, fetch.lockMs, fetch.hinted ? 1 : 0, ...roomArgs(fetch)]));
  }

  async complete(queue: string, lease: Lease, result: string, fetch: Fetch): Promise<CompleteOutcome> {
    const args = [lease.id, lease.token, result, fetch.count, fetch.workerId, fetch.lockMs, ...roomArgs(fetch)];
    return decodeComplete(await this.run('complete', queue, args, lease.id));
  }

  async fail(queue: string, lease: Lease, f: Failure): Promise<FailOutcome> {
    const args = [lease.id, lease.token, f.retryDelay, f.reason, f.message, f.stack, f.code];
    return decodeFail(await this.run('fail', queue, args, lease.id));
  }

  async throttle(queue: string, lease: Lease, retryAfter: number): Promise<FailOutcome> {
    return decodeFail(await this.run('throttle', queue, [lease.id, lease.token, retryAfter], lease.id));
  }

  async extend(queue: string, lockMs: number, leases: readonly Lease[]): Promise<ExtendOutcome[]> {
    if (leases.length === 0) return [];
    const k = this.keysOf(queue);
    const args: (string | number)[] = [lockMs];
    for (const lease of leases) args.push(lease.id, lease.token);
    return decodeExtend(await this.run('extend', queue, args, undefined, leases.map((l) => k.job(l.id))));
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
    return decodeCancel(await this.run('cancel', queue, [id], id));
  }

  async progress(queue: string, lease: Lease, progress: string): Promise<boolean> {
    return (await this.run('progress', queue, [lease.token, progress], lease.id)) === 1;
  }

  async log(queue: string, lease: Lease, line: string, keep: number): Promise<number | null> {
    const kept = Number(await this.run('log', queue, [lease.token, line, keep], lease.id));
    return kept < 0 ? null : kept;
  }

  async pause(queue: string): Promise<boolean> {
    return (await this.run('pause', queue, [])) === 1;
  }

  async resume(queue: string): Promise<boolean> {
    return (await this.run('resume', queue, [])) === 1;
  }

  async pauseNames(queue: string, names: readonly string[]): Promise<number> {
    return Number(await this.run('pauseNames', queue, names));
  }

  /** Moves parked jobs back 1,000 per call, so no single call blocks Redis for long. */
  async resumeNames(queue: string, names: readonly string[]): Promise<void> {
    while (Number(await this.run('resumeNames', queue, [1000, ...names])) > 0);
  }

  async pauseGroup(queue: string, group: string): Promise<boolean> {
    return (await this.run('pauseGroup', queue, [group])) === 1;
  }

  async resumeGroup(queue: string, group: string): Promise<boolean> {
    return (await this.run('resumeGroup', queue, [group])) === 1;
  }

  async setGroupLimits(queue: string, group: string, limits: GroupLimits): Promise<void> {
    // '=' leaves a limit as it is, '-' falls back to the queue default.
    const cap = limits.concurrency === undefined ? '=' : limits.concurrency === null ? '-' : String(limits.concurrency);
    const rate = limits.rateLimit === undefined ? '=' : limits.rateLimit === null ? '-' : encodeRate(limits.rateLimit);
    await this.run('groupLimits', queue, [group, cap, rate]);
  }

  async configure(queue: string, limits: QueueLimits): Promise<void> {
    const pairs: string[] = [];
    const set = (field: string, value: string | undefined) => value !== undefined && pairs.push(field, value);
    set('rl', limits.rateLimit === undefined ? undefined : limits.rateLimit === null ? '' : encodeRate(limits.rateLimit));
    set('gcap', limits.groupConcurrency === undefined ? undefined : String(limits.groupConcurrency ?? ''));
    set('grl', limits.groupRateLimit === undefined ? undefined : limits.groupRateLimit === null ? '' : encodeRate(limits.groupRateLimit));
    set('mw', limits.maxWaiting === undefined ? undefined : String(limits.maxWaiting ?? ''));
    set('mwg', limits.maxWaitingPerGroup === undefined ? undefined : String(limits.maxWaitingPerGroup ?? ''));
    if (pairs.length) await this.run('configure', queue, pairs);
  }

  private async consumeHint(queue: string, max: number): Promise<number> {
    return Number(await this.run('consumeHint', queue, [max]));
  }

  async isPaused(queue: string): Promise<boolean> {
    return (await this.call('isPaused').sendCommand(['HEXISTS', this.keysOf(queue).meta, 'paused'])) === 1;
  }

  async getJob(queue: string, id: string): Promise<JobRecord | null> {
    const hash = decodeHash((await this.call('getJob').sendCommand(['HGETALL', this.keysOf(queue).job(id)])) as RawReply);
    return Object.keys(hash).length === 0 ? null : decodeJob(id, hash);
  }

  async getLogs(queue: string, id: string): Promise<string[]> {
    return (await this.call('getLogs').sendCommand(['LRANGE', this.keysOf(queue).logs(id), '0', '-1'])) as string[];
  }

  async getOnce(queue: string, key: string): Promise<string | null> {
    return (await this.call('getOnce').sendCommand(['GET', this.keysOf(queue).once(key)])) as string | null;
  }

  async setOnce(queue: string, key: string, outcome: string, ttlMs: number): Promise<void> {
    await this.call('setOnce').sendCommand(['SET', this.keysOf(queue).once(key), outcome, 'PX', String(ttlMs)]);
  }

  async getCounts(queue: string): Promise<JobCounts> {
    const [waiting, paused, delayed, active, completed, failed, cancelled, waitingChildren] = (await this.run('counts', queue, [])) as number[];
    return {
      waiting: waiting!,
      paused: paused!,
      delayed: delayed!,
      active: active!,
      completed: completed!,
      failed: failed!,
      cancelled: cancelled!,
      'waiting-children': waitingChildren!,
    };
  }

  async pausedNames(queue: string): Promise<string[]> {
    return (await this.call('pausedNames').sendCommand(['SMEMBERS', this.keysOf(queue).pausedNames])) as string[];
  }

  async getLimits(queue: string): Promise<QueueLimits> {
    const [rl, gcap, grl, mw, mwg] = (await this.call('getLimits').sendCommand([
      'HMGET', this.keysOf(queue).meta, 'rl', 'gcap', 'grl', 'mw', 'mwg',
    ])) as (string | null)[];
    return {
      rateLimit: decodeRate(rl ?? null),
      groupConcurrency: decodeCount(gcap ?? null),
      groupRateLimit: decodeRate(grl ?? null),
      maxWaiting: decodeCount(mw ?? null),
      maxWaitingPerGroup: decodeCount(mwg ?? null),
    };
  }

  async getGroup(queue: string, group: string): Promise<GroupState> {
    const k = this.keysOf(queue);
    const client = this.call('getGroup');
    const [fields, waiting] = await Promise.all([
      client.sendCommand(['HMGET', k.group(group), 'paused', 'active', 'cap', 'rl']) as Promise<(string | null)[]>,
      client.sendCommand(['ZCARD', k.groupWait(group)]),
    ]);
    const [paused, active, cap, rl] = fields;
    const rateLimit = decodeRate(rl ?? null);
    return {
      id: group,
      waiting: Number(waiting),
      active: Number(active ?? 0),
      paused: paused != null,
      ...(cap != null && { concurrency: Number(cap) }),
      ...(rateLimit && { rateLimit }),
    };
  }

  async listIds(queue: string, state: JobState, start: number, end: number): Promise<string[]> {
    const key = indexKey(this.keysOf(queue), state);
    return (await this.call('listIds').sendCommand(['ZRANGE', key, String(start), String(end)])) as string[];
  }

  async verify(queue: string): Promise<string[]> {
    return verifyQueue(this.call('verify'), this.keysOf(queue));
  }

  /**
   * A flow spans queues (hash tags), so it is written in two steps per queue:
   * flow-add writes the queue's nodes with every leaf held, all or nothing,
   * and an intent; once every queue took its part the flow's decision is set
   * to release and flow-commit releases the leaves. When a queue refuses (an
   * id exists), the decision is discard and the parts already written go.
   * A producer dying between the steps leaves intents that sweepFlows settles
   * after the grace (lib/store/flow-intents.ts): never stuck, never half run.
   *
   * `stopAfter` is for crash tests only: it stops where a dying producer would.
   */
  async addFlow(nodes: readonly NewFlowNode[], stopAfter?: 'write' | 'decide'): Promise<AddFlowOutcome> {
    const byQueue = new Map<string, NewFlowNode[]>();
    for (const node of nodes) byQueue.set(node.queue, [...(byQueue.get(node.queue) ?? []), node]);
    const token = randomBytes(8).toString('hex');
    const root = nodes[0]?.queue ?? '';
    const decisionKey = this.keysOf(root).flowDecision(token);
    const at = Date.now();
    const written: [string, NewFlowNode[]][] = [];
    const giveUp = async (): Promise<void> => {
      await decideFlow(this.call('addFlow'), decisionKey, 'discard');
      await this.commitFlow('discard', token, written);
    };
    let createdAt = 0;
    try {
      for (const [queue, part] of byQueue) {
        const k = this.keysOf(queue);
        const keys = part.flatMap((n) => [k.job(n.job.id), k.deps(n.job.id)]);
        const intent = encodeIntent({ at, dq: root, ids: part.map((n) => n.job.id) });
        const reply = decodeAddFlow(await this.run('flowAdd', queue, [token, JSON.stringify(part.map(encodeNode)), intent], undefined, keys), queue);
        if (reply.status === 'duplicate') {
          await giveUp();
          // Every written part is gone with its intent: nothing will read the decision.
          await this.call('addFlow').sendCommand(['DEL', decisionKey]);
          return reply;
        }
        written.push([queue, part]);
        createdAt = reply.createdAt;
      }
    } catch (err) {
      await giveUp().catch(() => undefined); // else the sweep discards it after the grace
      throw err;
    }
    if (stopAfter === 'write') return { status: 'added', createdAt };
    if ((await decideFlow(this.call('addFlow'), decisionKey, 'release')) === 'discard') {
      await this.commitFlow('discard', token, written);
      throw new FlowAddAbandonedError(FLOW_SWEEP_GRACE_MS);
    }
    if (stopAfter === 'decide') return { status: 'added', createdAt };
    await this.commitFlow('release', token, written);
    await this.call('addFlow').sendCommand(['DEL', decisionKey]);
    return { status: 'added', createdAt };
  }

  private async commitFlow(mode: FlowDecision, token: string, parts: readonly [string, NewFlowNode[]][]): Promise<void> {
    for (const [queue, part] of parts) await this.commitFlowPart(queue, mode, token, part.map((n) => n.job.id));
  }

  private async commitFlowPart(queue: string, mode: FlowDecision, token: string, ids: readonly string[]): Promise<number> {
    const k = this.keysOf(queue);
    const keys = ids.flatMap((id) => [k.job(id), k.deps(id)]);
    return (await this.run('flowCommit', queue, [mode, token, ...ids], undefined, keys)) as number;
  }

  /**
   * Settles the flow adds whose producer stopped between the two steps in
   * this queue: parts older than `graceMs` follow the flow's decision, which
   * becomes discard when the producer never made one. Returns how many parts.
   */
  async sweepFlows(queue: string, graceMs: number = FLOW_SWEEP_GRACE_MS): Promise<number> {
    const k = this.keysOf(queue);
    const client = this.call('sweepFlows');
    const intents = decodeHash((await client.sendCommand(['HGETALL', k.flowIntents])) as RawReply);
    let settled = 0;
    for (const [token, raw] of Object.entries(intents)) {
      const intent = decodeIntent(raw);
      if (!intent) {
        await client.sendCommand(['HDEL', k.flowIntents, token]);
        continue;
      }
      if (Date.now() - intent.at < graceMs) continue;
      const decision = await decideFlow(client, this.keysOf(intent.dq).flowDecision(token), 'discard');
      await this.commitFlowPart(queue, decision, token, intent.ids);
      settled += 1;
    }
    return settled;
  }

  async deliverToParent(queue: string, childId: string): Promise<DeliverOutcome> {
    const message = (await this.call('deliverToParent').sendCommand(['HGET', this.keysOf(queue).outbox, childId])) as string | null;
    if (message == null) return { parentState: null };
    return this.deliver(queue, childId, message);
  }

  /** Applies one outbox notification on the parent's queue, passes on a parent it finished, then acknowledges. */
  private async deliver(queue: string, childId: string, message: string): Promise<DeliverOutcome> {
    const { pq, pid } = JSON.parse(message) as { pq: string; pid: string };
    const [code, state] = (await this.run('childDone', pq, [message], pid)) as [number, string];
    const parentState = code === 1 && state !== 'removed' ? (state as DeliverOutcome['parentState']) : null;
    // The child's failure may have dead-lettered the parent: its own parent hears of it now, not at the next sweep.
    if (parentState === 'failed') await this.deliverToParent(pq, pid);
    await this.run('outboxAck', queue, [childId, message]);
    return { parentState };
  }

  async sweepOutbox(queue: string, limit: number): Promise<number> {
    const [, flat] = (await this.call('sweepOutbox').sendCommand(['HSCAN', this.keysOf(queue).outbox, '0', 'COUNT', String(limit)])) as [
      string,
      string[],
    ];
    let delivered = 0;
    for (let i = 0; i + 1 < flat.length && delivered < limit; i += 2) {
      await this.deliver(queue, flat[i]!, flat[i + 1]!);
      delivered += 1;
    }
    return delivered;
  }

  async getChildren(queue: string, id: string): Promise<ChildrenRecord> {
    const k = this.keysOf(queue);
    const client = this.call('getChildren');
    const [pending, results, failures] = await Promise.all([
      client.sendCommand(['SMEMBERS', k.deps(id)]) as Promise<string[]>,
      client.sendCommand(['HGETALL', k.results(id)]) as Promise<RawReply>,
      client.sendCommand(['HGETALL', k.failures(id)]) as Promise<RawReply>,
    ]);
    return decodeChildren(pending, decodeHash(results), decodeHash(failures));
  }

  async redrive(queue: string, id: string): Promise<RedriveOutcome> {
    return decodeRedrive(await this.run('redrive', queue, [id], id));
  }

  async remove(queue: string, id: string): Promise<RemoveOutcome> {
    return decodeRemove(await this.run('remove', queue, [id], id));
  }

  async watch(queue: string, id: string): Promise<JobState | null> {
    const state = await this.run('watch', queue, [], id);
    return typeof state === 'string' ? (state as JobState) : null;
  }
}

/**
 * One attempt to connect: the first connection error fails the call (node-redis
 * would otherwise retry for ever inside connect()).
 */
async function openOnce(client: RedisClientLike): Promise<void> {
  let onError: ((err: Error) => void) | undefined;
  const refused = new Promise<never>((_, reject) => {
    onError = reject;
    client.on('error', onError);
  });
  const connecting = client.connect();
  connecting.catch(() => undefined);
  try {
    await Promise.race([connecting, refused]);
  } finally {
    client.off('error', onError!);
  }
}

/** A flow node as flow-add reads it (numbers as strings, so Lua's cjson keeps them exact). */
function encodeNode(node: NewFlowNode): Record<string, unknown> {
  const { job, parent } = node;
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    delay: String(job.delay),
    priority: String(job.priority),
    lifo: job.lifo ? '1' : '0',
    maxAttempts: String(job.maxAttempts),
    deadline: String(job.deadline),
    rc: job.removeOnComplete,
    rf: job.removeOnFail,
    group: job.group ?? '',
    pq: parent?.queue ?? '',
    pid: parent?.id ?? '',
    pol: parent?.policy ?? '',
    deps: node.children.map(encodeChildRef),
  };
}

/**
 * The options of a new job that differ from their defaults, as add.lua reads
 * them (one JSON argument, '' when all are defaults; values as strings so
 * Lua's cjson keeps them exact). A plain add thus costs 5 arguments, not 13.
 */
/** Fetch.nameRoom as the name, room argument pairs claim-batch.lua reads. */
function roomArgs(fetch: Fetch): (string | number)[] {
  const args: (string | number)[] = [];
  for (const [name, room] of fetch.nameRoom ?? []) args.push(name, room);
  return args;
}

export function packAddOptions(job: NewJob): string {
  const x: Record<string, string> = {};
  let differs = false;
  const put = (key: string, value: string) => {
    x[key] = value;
    differs = true;
  };
  if (job.delay !== 0) put('d', String(job.delay));
  if (job.priority !== 0) put('p', String(job.priority));
  if (job.lifo) put('l', '1');
  if (job.maxAttempts !== 1) put('a', String(job.maxAttempts));
  if (job.deadline !== 0) put('dl', String(job.deadline));
  if (job.dedup) put('t', String(job.dedup.ttl));
  if (job.removeOnComplete !== '-1,-1') put('rc', job.removeOnComplete);
  if (job.removeOnFail !== '-1,-1') put('rf', job.removeOnFail);
  if (job.group !== undefined && job.group !== '') put('g', job.group);
  return differs ? JSON.stringify(x) : '';
}

function encodeRate(rate: RateLimit): string {
  return `${rate.max},${rate.duration}`;
}

function decodeRate(value: string | null): RateLimit | null {
  if (!value) return null;
  const [max, duration] = value.split(',').map(Number);
  return { max: max!, duration: duration! };
}

function decodeCount(value: string | null): number | null {
  return value == null || value === '' ? null : Number(value);
}
