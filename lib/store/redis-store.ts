import { FLOW_SWEEP_GRACE_MS } from './flow-intents.js';
import * as reads from './redis-reads.js';
import {
  decodeAdd, decodeCancel, decodeClaim, decodeComplete, singleCompletion, decodeCount, decodeCounts, decodeExtend,
  decodeFail, decodeFlag, decodeLog, decodePromote, decodeReap,
  decodeRelease, decodeRedrive, decodeRemove, decodeStrings, decodeWatch,
} from './replies.js';
import { addArgs, claimArgs, completeArgs, configureArgs, extendArgs, groupLimitArgs } from './script-args.js';
import type {
  AddBatchOutcome, AddFlowOutcome, ChildrenRecord, NewFlowNode, RedriveOutcome, RemoveOutcome,
  CancelOutcome, ClaimOutcome, CompleteOutcome, ExtendOutcome, Failure, FailOutcome, Fetch, GroupLimits, GroupState,
  JobCounts, JobRecord, JobState, Lease, NewJob, PromoteOutcome, QueueLimits, ReapOutcome, ReleaseOutcome, Store,
} from './store.js';
import { verifyQueue, verifyWatchedKeys } from './verify.js';
import { liveWorkers, type WorkerBeat, type WorkerInfo } from './worker-registry.js';
import { openReaderFor, readQuietly, slotMoved } from './quiet-read.js';
import { ReplyShapeError } from './errors.js';
import { promoteBatch, purgeStep, readPage, redriveBatch, type RunScript } from './ops-store.js';
import type { Completion, CompleteManyOutcome, MetricsRecord, Page, PageQuery, PurgeQuery, PurgeStep, RedriveManyOutcome } from './store.js';
import { decodeMetrics } from './metrics-reply.js';
import { RedisStoreBase } from './redis-store-base.js';
import { changeJob, drainStep, obliterateBegin, readState } from './redis-changes.js';
import type { DrainQuery, DrainStep, JobChange, JobChangeOutcome, ObliterateOutcome } from './job-changes.js';
import { unlinkUnder } from './obliterate.js';
import { sendServed } from './cluster-client.js';
import { mappingUnavailable } from './redis-client.js';
import { decodeImport, encodeImported, type ImportedJob, type ImportOutcome } from './import-records.js';

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
export class RedisStore extends RedisStoreBase implements Store {
  async add(queue: string, jobs: readonly NewJob[]): Promise<AddBatchOutcome> {
    // The job hashes and dedup keys are built by the script from the queue's key prefixes (same hash tag).
    return decodeAdd(await this.run('add', queue, addArgs(jobs)), jobs.map((j) => j.id));
  }

  async claim(queue: string, fetch: Fetch): Promise<ClaimOutcome> {
    return decodeClaim(await this.run('claim', queue, claimArgs(fetch)));
  }

  async complete(queue: string, lease: Lease, result: string, fetch: Fetch, durationMs?: number): Promise<CompleteOutcome> {
    return singleCompletion(await this.completeMany(queue, [{ lease, result, durationMs }], fetch));
  }

  async completeMany(queue: string, completions: readonly Completion[], fetch: Fetch): Promise<CompleteManyOutcome> {
    const outcome = decodeComplete(await this.run('complete', queue, completeArgs(completions, fetch)));
    for (let i = 0; i < completions.length; i++) {
      const { lease } = completions[i]!;
      const { status } = outcome.statuses[i]!;
      if (lease.child && (status === 'completed' || status === 'cancelled')) await this.flows.tellParent(queue, lease.id);
    }
    return outcome;
  }

  async fail(queue: string, lease: Lease, f: Failure): Promise<FailOutcome> {
    const args = [lease.id, lease.token, f.retryDelay, f.reason, f.message, f.stack, f.code];
    const outcome = decodeFail(await this.run('fail', queue, args, lease.id));
    if (lease.child && outcome.status === 'moved' && (outcome.state === 'failed' || outcome.state === 'cancelled')) await this.flows.tellParent(queue, lease.id);
    return outcome;
  }

  async throttle(queue: string, lease: Lease, retryAfter: number, wholeQueue = true): Promise<FailOutcome> {
    return decodeFail(await this.run('throttle', queue, [lease.id, lease.token, retryAfter, wholeQueue ? '1' : '0'], lease.id));
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

  async reserveIds(queue: string, count: number, taken?: string): Promise<number> {
    // One HINCRBY (lua/reserve-ids): atomic, so two producers never draw the same ids.
    return Number(await this.run('reserveIds', queue, [count, taken ?? '']));
  }

  async cancel(queue: string, id: string): Promise<CancelOutcome> {
    const outcome = decodeCancel(await this.run('cancel', queue, [id], id));
    // A flow child cancelled here tells its parent now (the housekeeping sweep would, later).
    if (outcome.status === 'cancelled') await this.flows.deliver(queue, id);
    return outcome;
  }

  async cancelWaiting(queue: string, ids: readonly string[]): Promise<boolean[]> {
    const reply = await this.run('cancelWaiting', queue, ids);
    if (!Array.isArray(reply) || reply.length !== ids.length) throw new ReplyShapeError('cancel-waiting', `expected ${ids.length} entries`);
    const codes = reply.map(Number);
    // Flow children among them (2) tell their parents now, as cancel() does.
    await Promise.all(ids.filter((_, i) => codes[i] === 2).map((id) => this.flows.deliver(queue, id)));
    return codes.map((code) => code > 0);
  }

  async progress(queue: string, lease: Lease, progress: string): Promise<boolean> {
    return decodeFlag('progress', await this.run('progress', queue, [lease.token, progress], lease.id));
  }

  async updateData(queue: string, lease: Lease, data: string): Promise<boolean> {
    return decodeFlag('updateData', await this.run('updateData', queue, [lease.token, data], lease.id));
  }

  async beat(queue: string, worker: WorkerBeat, staleMs: number): Promise<void> {
    const { id, ...info } = worker;
    await this.run('workerBeat', queue, [id, JSON.stringify(info), staleMs]);
  }

  async forgetWorker(queue: string, id: string): Promise<void> {
    await this.run('workerBeat', queue, [id, '', 0]);
  }

  async listWorkers(queue: string, staleMs: number): Promise<WorkerInfo[]> {
    return liveWorkers(await this.run('workerList', queue, []), staleMs);
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
    return reads.isPaused(this.call('isPaused'), this.keysOf(queue));
  }

  async getJob(queue: string, id: string): Promise<JobRecord | null> {
    return reads.readJob(this.call('getJob'), this.keysOf(queue), id);
  }

  async getLogs(queue: string, id: string): Promise<string[]> {
    return reads.readLogs(this.call('getLogs'), this.keysOf(queue), id);
  }

  async getOnce(queue: string, key: string): Promise<string | null> {
    return reads.readOnce(this.call('getOnce'), this.keysOf(queue), key);
  }

  async setOnce(queue: string, key: string, outcome: string, ttlMs: number): Promise<void> {
    await reads.writeOnce(this.call('setOnce'), this.keysOf(queue), key, outcome, ttlMs);
  }

  async getCounts(queue: string): Promise<JobCounts> {
    return decodeCounts(await this.run('counts', queue, []));
  }

  async getMetrics(queue: string): Promise<MetricsRecord> {
    const [counts, raw] = await Promise.all([this.getCounts(queue), this.run('metrics', queue, [])]);
    return decodeMetrics(counts, raw);
  }

  async sampleGauges(queue: string): Promise<boolean> {
    return Number(await this.run('gauges', queue, [])) === 1;
  }

  async pausedNames(queue: string): Promise<string[]> {
    return reads.readPausedNames(this.call('pausedNames'), this.keysOf(queue));
  }

  async getLimits(queue: string): Promise<QueueLimits> {
    return reads.readLimits(this.call('getLimits'), this.keysOf(queue));
  }

  async getGroup(queue: string, group: string): Promise<GroupState> {
    return reads.readGroup(this.call('getGroup'), this.keysOf(queue), group);
  }

  async listIds(queue: string, state: JobState, start: number, end: number): Promise<string[]> {
    // Waiting jobs sit in two lanes (lua/includes/place): one script reads them in claim order.
    if (state === 'waiting') return decodeStrings('waiting-ids', await this.run('waitingIds', queue, [start, end]));
    return reads.readIds(this.call('listIds'), this.keysOf(queue), state, start, end);
  }

  async verify(queue: string): Promise<string[]> {
    const keys = this.keysOf(queue);
    const command = this.command('verify');
    // WATCH and MULTI need a connection of verify's own, on the node that serves the queue's slot.
    const read = () => readQuietly(() => openReaderFor(command, keys.meta, this.replyClock, 'verify'), verifyWatchedKeys(keys), (client) => verifyQueue(client, keys));
    for (let attempt = 1; ; attempt++) {
      try {
        return await read();
      } catch (err) {
        // The slot moved to another node meanwhile (a failover, a resharding): read it again there.
        if (!slotMoved(err) || attempt === 3) throw err;
      }
    }
  }

  /**
   * Adds a flow across queues in two steps per queue (see RedisFlows.add).
   * `stopAfter` is for crash tests only: it stops where a dying producer would.
   */
  addFlow(nodes: readonly NewFlowNode[], stopAfter?: 'write' | 'decide'): Promise<AddFlowOutcome> {
    return this.flows.add(nodes, stopAfter);
  }

  /** The outbox first; once it is empty, the flow adds a crashed producer left uncommitted. */
  async housekeep(queue: string, limit: number): Promise<number> {
    const delivered = await this.flows.sweepOutbox(queue, limit);
    if (delivered < limit) await this.flows.sweep(queue, FLOW_SWEEP_GRACE_MS);
    return delivered;
  }

  async getChildren(queue: string, id: string): Promise<ChildrenRecord> {
    return reads.readChildren(this.call('getChildren'), this.keysOf(queue), id);
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

  // Job handles and queue housekeeping: lib/store/redis-changes.ts, obliterate.ts.
  getState(queue: string, id: string): Promise<JobState | null> {
    return readState(this.call('getState'), this.keysOf(queue), id);
  }

  changeJob(queue: string, id: string, change: JobChange): Promise<JobChangeOutcome> {
    return changeJob((name, q, args, jobId) => this.run(name, q, args, jobId), queue, id, change);
  }

  /** Flow children among the drained jobs are cancelled: their parents hear before this resolves, as after cancel(). */
  async drain(queue: string, query: DrainQuery): Promise<DrainStep> {
    const { children, ...step } = await drainStep((name, q, args) => this.run(name, q, args), queue, query);
    for (const id of children) await this.flows.deliver(queue, id);
    return step;
  }

  async obliterate(queue: string, force: boolean): Promise<ObliterateOutcome> {
    const active = await obliterateBegin((name, q, args) => this.run(name, q, args), queue, force);
    if (active !== null) return { status: 'active', active };
    const keys = this.keysOf(queue);
    // SCAN walks one node: on a cluster, the master that serves the queue's slot.
    const node = mappingUnavailable((await sendServed(this.command('obliterate'), ['EXISTS', keys.meta])).connection, 'obliterate');
    await unlinkUnder(node, keys.meta.slice(0, -'meta'.length), keys.meta);
    return { status: 'obliterated' };
  }

  /** One script call for the batch (lua/import.lua): each job whole, with its history, or left as it is. */
  async importJobs(queue: string, jobs: readonly ImportedJob[]): Promise<ImportOutcome[]> {
    if (jobs.length === 0) return [];
    return decodeImport(await this.run('importJobs', queue, [JSON.stringify(jobs.map(encodeImported))]), jobs.length);
  }
}
