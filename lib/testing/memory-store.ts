import { EventEmitter } from 'node:events';
import { InvalidArgumentError } from '../engine/errors.js';
import { assertKnownKeys, assertPlainObject, describe } from '../engine/options.js';
import { singleCompletion } from '../store/completion.js';
import { StoreNotConnectedError } from '../store/errors.js';
import type * as S from '../store/store.js';
import { decodeFlowNode, decodeNewJob } from './memory-adapter.js';
import { claimJobs } from './memory-claim.js';
import { MemoryClock, type ClockMode } from './memory-clock.js';
import { MemoryEventReader, MemStream } from './memory-events.js';
import { addFlowNodes, childrenOf, deliver, flushOutboxes, redriveJob, removeJob } from './memory-flows.js';
import { addJobs, appendLog, passTaken, cancelJob, completeJob, extendLeases, failJob, held, promoteDue, reapExpired, recordData, recordProgress, releaseJob, throttleJob } from './memory-jobs.js';
import { metricsOf, sampleGaugesOf } from './memory-metrics.js';
import { importJobs } from './memory-import.js';
import { pageOf, promoteJobs, purgeOf, redriveMany } from './memory-ops.js';
import { changeJobIn, drainIn, obliterateIn, watchIn } from './memory-changes.js';
import { MemorySchedulers } from './memory-schedulers.js';
import { newQueue, toRecord, type MemQueue } from './memory-state.js';
import type { Ctx, Signals } from './memory-moves.js';
import { MemoryNotify } from './memory-notify.js';
import type { MemoryStoreEvents, MemoryStoreOptions } from './memory-store-options.js';
import * as Q from './memory-queue.js';
import { MemoryWorkers } from './memory-workers.js';

/**
 * A Store in the process, with RedisStore's observable semantics (the Lua
 * scripts of lua/ are its spec: each transition here mirrors one) and a
 * controllable clock. Queue, Worker and FlowProducer run on it unchanged.
 * Each call is atomic: it runs to its end before any other starts.
 *
 * @example
 * const store = new MemoryStore({ clock: 'manual' });
 * const queue = new Queue('emails', { store });
 * const worker = new Worker('emails', handler, { store });
 * await queue.add('welcome', { to: 'ada@example.com' }, { delay: 60_000 });
 * await store.clock.advance(60_000);
 */
export class MemoryStore implements S.Store {
  readonly notify = new MemoryNotify();
  readonly clock: MemoryClock;
  /** Testing hooks (QueueTesting): claimed jobs, finished attempts. */
  readonly events = new EventEmitter<MemoryStoreEvents>();
  /** Cron and every-N schedulers, on the store's clock. */
  readonly schedulers: MemorySchedulers;
  private readonly queues = new Map<string, MemQueue>();
  private readonly workers = new MemoryWorkers();
  /** Event streams by queue: a reader may wait on one before its queue has a job. */
  private readonly streams = new Map<string, MemStream>();
  private closed = false;
  /** Claims allowed per queue while claims are gated (manual testing mode), and of which job name; undefined: not gated. */
  private gate: Map<string, { n: number; name?: string }> | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    assertPlainObject(options, 'MemoryStore options');
    assertKnownKeys(options, ['clock', 'schedules'], 'MemoryStore options');
    const { clock, schedules } = options;
    if (schedules !== undefined && typeof schedules !== 'boolean') throw new InvalidArgumentError('MemoryStore options.schedules', `must be true or false, got ${describe(schedules)}`);
    this.schedulers = new MemorySchedulers((what, queue, body) => this.run(what, queue, body), schedules ?? true);
    if (clock !== undefined && !(clock instanceof MemoryClock) && clock !== 'real' && clock !== 'manual') {
      throw new InvalidArgumentError('MemoryStore options.clock', `must be 'real', 'manual' or a MemoryClock, got ${describe(clock)}`);
    }
    this.clock = clock instanceof MemoryClock ? clock : new MemoryClock(clock ?? 'real');
  }

  connect(): Promise<void> { return this.closed ? Promise.reject(new StoreNotConnectedError('connect()')) : Promise.resolve(); }

  /** disconnect() was called: every call now fails with StoreNotConnectedError. */
  get isClosed(): boolean {
    return this.closed;
  }

  async disconnect(): Promise<void> {
    this.closed = true;
    await this.notify.close();
  }

  /** Gates claims: none start unless allowed by allowClaims (QueueTesting's manual mode). */
  gateClaims(on: boolean): void {
    this.gate = on ? new Map() : undefined;
  }

  /** Lets `n` more claims through the gate on `queue`, of jobs named `name` only when given. */
  allowClaims(queue: string, n: number, name?: string): void {
    if (!this.gate) return;
    this.gate.set(queue, { n: (this.gate.get(queue)?.n ?? 0) + n, ...(name !== undefined && { name }) });
    this.notify.publish({ sched: [{ kind: 'waiting', queue }], owls: [], done: [] });
  }

  /** Every job of a queue, in creation order, as stored now (synchronous, for tests). */
  snapshot(queue: string): S.JobRecord[] { return [...(this.queues.get(queue)?.jobs.values() ?? [])].map(toRecord); }

  /** Runs one transition on a queue: atomic, at one instant, its messages published after. */
  private run<T>(what: string, queue: string, body: (ctx: Ctx, ctxOf: (queue: string) => Ctx) => T): Promise<T> {
    if (this.closed) return Promise.reject(new StoreNotConnectedError(what));
    this.clock.touch();
    const now = this.clock.now();
    const signals: Signals = { sched: [], owls: [], done: [] };
    const ctxs = new Map<string, Ctx>();
    const ctxOf = (name: string): Ctx => {
      let ctx = ctxs.get(name);
      if (!ctx) {
        ctx = { q: this.queueOf(name), now, signals };
        ctxs.set(name, ctx);
      }
      return ctx;
    };
    try {
      const result = body(ctxOf(queue), ctxOf);
      flushOutboxes(ctxs, ctxOf);
      this.notify.publish(signals);
      return Promise.resolve(result);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private queueOf(name: string): MemQueue {
    let q = this.queues.get(name);
    if (!q) {
      q = newQueue(name, this.streamOf(name));
      this.queues.set(name, q);
    }
    return q;
  }

  private streamOf(name: string): MemStream {
    let stream = this.streams.get(name);
    if (!stream) {
      stream = new MemStream();
      this.streams.set(name, stream);
    }
    return stream;
  }

  private settledAll(queue: string, id: string, state: S.JobState | undefined): void {
    if (state && state !== 'active') this.events.emit('settled', queue, id, state);
  }

  reserveIds(queue: string, count: number, taken?: string): Promise<number> {
    return this.run('reserveIds', queue, ({ q }) => {
      if (taken !== undefined) passTaken(q, taken);
      return (q.ids += count);
    });
  }

  add(queue: string, jobs: readonly S.NewJob[]): Promise<S.AddBatchOutcome> { return this.run('add', queue, (ctx) => addJobs(ctx, jobs.map(decodeNewJob))); }

  async claim(queue: string, fetch: S.Fetch): Promise<S.ClaimOutcome> {
    return this.run('claim', queue, (ctx) => this.claimIn(ctx, fetch));
  }

  private claimIn(ctx: Ctx, fetch: S.Fetch): S.ClaimOutcome {
    let count = fetch.count;
    const gate = this.gate?.get(ctx.q.name);
    if (this.gate) count = Math.min(count, gate?.n ?? 0);
    const outcome = claimJobs(ctx, { count, workerId: fetch.workerId, lockMs: fetch.lockMs, room: fetch.nameRoom && new Map(fetch.nameRoom), ...(gate?.name !== undefined && { only: gate.name }) });
    if (gate && outcome.jobs.length > 0) gate.n -= outcome.jobs.length;
    if (outcome.jobs.length > 0) this.events.emit('claimed', ctx.q.name, outcome.jobs.map((j) => j.id));
    return outcome;
  }

  async complete(queue: string, lease: S.Lease, result: string, fetch: S.Fetch, durationMs?: number): Promise<S.CompleteOutcome> {
    return singleCompletion(await this.completeMany(queue, [{ lease, result, durationMs }], fetch));
  }

  completeMany(queue: string, completions: readonly S.Completion[], fetch: S.Fetch): Promise<S.CompleteManyOutcome> {
    return this.run('complete', queue, (ctx): S.CompleteManyOutcome => {
      const statuses = completions.map(({ lease, result, durationMs }) => {
        const s = completeJob(ctx, lease, result, durationMs);
        if (s.status === 'completed' || s.status === 'cancelled') this.settledAll(queue, lease.id, s.status);
        return s;
      });
      const next = this.claimIn(ctx, fetch);
      return { statuses, next: next.jobs, waitMs: next.waitMs };
    });
  }

  fail(queue: string, lease: S.Lease, failure: S.Failure): Promise<S.FailOutcome> {
    return this.run('fail', queue, (ctx) => {
      const outcome = failJob(ctx, lease, failure);
      if (outcome.status === 'moved') this.settledAll(queue, lease.id, outcome.state);
      return outcome;
    });
  }

  throttle(queue: string, lease: S.Lease, retryAfter: number, wholeQueue = true): Promise<S.FailOutcome> {
    return this.run('throttle', queue, (ctx) => {
      const outcome = throttleJob(ctx, lease, retryAfter, wholeQueue);
      if (outcome.status === 'moved') this.settledAll(queue, lease.id, outcome.state);
      return outcome;
    });
  }

  extend(queue: string, lockMs: number, leases: readonly S.Lease[]): Promise<S.ExtendOutcome[]> {
    return this.run('extend', queue, (ctx) => extendLeases(ctx, lockMs, leases));
  }

  release(queue: string, lease: S.Lease): Promise<S.ReleaseOutcome> {
    return this.run('release', queue, (ctx) => {
      const outcome = releaseJob(ctx, lease);
      if (outcome !== 'lost') this.settledAll(queue, lease.id, outcome === 'released' ? 'waiting' : 'cancelled');
      return outcome;
    });
  }

  promote(queue: string, limit: number): Promise<S.PromoteOutcome> { return this.run('promote', queue, (ctx) => promoteDue(ctx, limit)); }

  reap(queue: string, maxStalled: number, limit: number): Promise<S.ReapOutcome[]> {
    return this.run('reap', queue, (ctx) => {
      const out = reapExpired(ctx, maxStalled, limit);
      for (const r of out) this.settledAll(queue, r.id, r.state);
      return out;
    });
  }

  cancel(queue: string, id: string): Promise<S.CancelOutcome> { return this.run('cancel', queue, (ctx) => cancelJob(ctx, id)); }

  progress(queue: string, lease: S.Lease, progress: string): Promise<boolean> { return this.run('progress', queue, (ctx) => recordProgress(ctx, lease, progress)); }
  updateData(queue: string, lease: S.Lease, data: string): Promise<boolean> { return this.run('updateData', queue, (ctx) => recordData(ctx, lease, data)); }
  beat(queue: string, worker: S.WorkerBeat, staleMs: number): Promise<void> { return this.run('beat', queue, (ctx) => this.workers.beat(queue, worker, staleMs, ctx.now)); }
  requestWorker(queue: string, id: string, paused: boolean): Promise<void> { return this.run('requestWorker', queue, () => void this.workers.requests.set(`${queue}\n${id}`, paused)); }
  takeWorkerRequest(queue: string, id: string): Promise<boolean | null> {
    return this.run('takeWorkerRequest', queue, () => { const key = `${queue}\n${id}`; const want = this.workers.requests.get(key) ?? null; this.workers.requests.delete(key); return want; });
  }
  forgetWorker(queue: string, id: string): Promise<void> { return this.run('forgetWorker', queue, () => this.workers.forget(queue, id)); }
  listWorkers(queue: string, staleMs: number): Promise<S.WorkerInfo[]> { return this.run('listWorkers', queue, (ctx) => this.workers.list(queue, staleMs, ctx.now)); }

  log(queue: string, lease: S.Lease, line: string, keep: number): Promise<number | null> { return this.run('log', queue, (ctx) => appendLog(ctx, lease, line, keep)); }

  pause(queue: string): Promise<boolean> { return this.run('pause', queue, Q.pauseQueue); }

  resume(queue: string): Promise<boolean> { return this.run('resume', queue, Q.resumeQueue); }

  pauseNames(queue: string, names: readonly string[]): Promise<number> { return this.run('pauseNames', queue, (ctx) => Q.pauseNamesOf(ctx, names)); }

  resumeNames(queue: string, names: readonly string[]): Promise<void> { return this.run('resumeNames', queue, (ctx) => Q.resumeNamesOf(ctx, names)); }

  pauseGroup(queue: string, group: string): Promise<boolean> { return this.run('pauseGroup', queue, (ctx) => Q.pauseGroupOf(ctx, group)); }

  resumeGroup(queue: string, group: string): Promise<boolean> { return this.run('resumeGroup', queue, (ctx) => Q.resumeGroupOf(ctx, group)); }

  setGroupLimits(queue: string, group: string, limits: S.GroupLimits): Promise<void> {
    return this.run('setGroupLimits', queue, (ctx) => Q.setGroupLimitsOf(ctx, group, limits));
  }

  configure(queue: string, limits: S.QueueLimits): Promise<void> { return this.run('configure', queue, (ctx) => Q.configureQueue(ctx, limits)); }

  isPaused(queue: string): Promise<boolean> { return this.run('isPaused', queue, ({ q }) => q.paused); }

  pausedNames(queue: string): Promise<string[]> { return this.run('pausedNames', queue, ({ q }) => [...q.pausedNames]); }

  getLimits(queue: string): Promise<S.QueueLimits> { return this.run('getLimits', queue, ({ q }) => Q.queueLimits(q)); }

  getGroup(queue: string, group: string): Promise<S.GroupState> { return this.run('getGroup', queue, ({ q }) => Q.groupStateOf(q, group)); }

  getJob(queue: string, id: string): Promise<S.JobRecord | null> {
    return this.run('getJob', queue, ({ q }) => {
      const job = q.jobs.get(id);
      return job ? toRecord(job) : null;
    });
  }

  getLogs(queue: string, id: string): Promise<string[]> { return this.run('getLogs', queue, ({ q }) => [...(q.jobs.get(id)?.logs ?? [])]); }

  getOnce(queue: string, key: string): Promise<string | null> {
    return this.run('getOnce', queue, ({ q, now }) => {
      const kept = q.once.get(key);
      return kept && kept.expiresAt > now ? kept.outcome : null;
    });
  }

  setOnce(queue: string, key: string, outcome: string, ttlMs: number): Promise<void> {
    return this.run('setOnce', queue, ({ q, now }) => void q.once.set(key, { outcome, expiresAt: now + ttlMs }));
  }

  getCounts(queue: string): Promise<S.JobCounts> { return this.run('getCounts', queue, ({ q }) => Q.countsOf(q)); }

  listIds(queue: string, state: S.JobState, start: number, end: number): Promise<string[]> {
    return this.run('listIds', queue, ({ q }) => Q.listIdsOf(q, state, start, end));
  }

  verify(queue: string): Promise<string[]> { return this.run('verify', queue, ({ q }) => Q.verifyQueue(q)); }

  importJobs(queue: string, jobs: readonly S.ImportedJob[]): Promise<S.ImportOutcome[]> {
    return this.run('importJobs', queue, (ctx) => importJobs(ctx, jobs));
  }

  addFlow(nodes: readonly S.NewFlowNode[]): Promise<S.AddFlowOutcome> {
    return this.run('addFlow', nodes[0]?.queue ?? '', (_ctx, ctxOf) => addFlowNodes(ctxOf, nodes, decodeFlowNode));
  }

  /** Parents hear of their children inside each transition and flows are written whole: this only drains what an outbox holds. */
  housekeep(queue: string, limit: number): Promise<number> {
    return this.run('housekeep', queue, (ctx, ctxOf) => {
      const ids = [...ctx.q.outbox.keys()].slice(0, limit);
      for (const id of ids) deliver(ctxOf, queue, id);
      return ids.length;
    });
  }

  /** Always answers while connected: the store is this process. */
  ping(): Promise<number> { return this.closed ? Promise.reject(new StoreNotConnectedError('ping()')) : Promise.resolve(0); }

  async listQueues(): Promise<string[]> { return [...this.queues.keys()].sort(); }

  getMetrics(queue: string): Promise<S.MetricsRecord> { return this.run('getMetrics', queue, ({ q, now }) => metricsOf(q, now, Q.countsOf(q))); }

  sampleGauges(queue: string): Promise<boolean> { return this.run('sampleGauges', queue, (ctx) => sampleGaugesOf(ctx)); }

  page(queue: string, query: S.PageQuery): Promise<S.Page> { return this.run('page', queue, ({ q }) => pageOf(q, query)); }

  purge(queue: string, query: S.PurgeQuery): Promise<S.PurgeStep> { return this.run('purge', queue, (ctx) => purgeOf(ctx, query)); }

  /** Flow parents dead-lettered by these children hear of it inside the call, as with redrive. */
  redriveMany(queue: string, ids: readonly string[], options: { readonly resetAttempts: boolean; readonly delay: number }): Promise<S.RedriveManyOutcome> {
    return this.run('redriveMany', queue, (ctx) => redriveMany(ctx, ids, options));
  }

  promoteJobs(queue: string, ids: readonly string[]): Promise<number> { return this.run('promoteJobs', queue, (ctx) => promoteJobs(ctx, ids)); }

  /** A reader of the queue's stream (no connection of its own: it waits for the next append). */
  openEvents(queue: string): S.EventReader { return new MemoryEventReader(this.streamOf(queue)); }

  getChildren(queue: string, id: string): Promise<S.ChildrenRecord> { return this.run('getChildren', queue, ({ q }) => childrenOf(q.jobs.get(id))); }

  redrive(queue: string, id: string): Promise<S.RedriveOutcome> { return this.run('redrive', queue, (ctx) => redriveJob(ctx, id)); }

  remove(queue: string, id: string): Promise<S.RemoveOutcome> { return this.run('remove', queue, (ctx) => removeJob(ctx, id)); }

  watch(queue: string, id: string): Promise<S.JobState | null> { return this.run('watch', queue, ({ q }) => watchIn(q, id)); }

  getState(queue: string, id: string): Promise<S.JobState | null> { return this.run('getState', queue, ({ q }) => q.jobs.get(id)?.state ?? null); }

  changeJob(queue: string, id: string, change: S.JobChange): Promise<S.JobChangeOutcome> { return this.run('changeJob', queue, (ctx) => changeJobIn(ctx, id, change)); }

  drain(queue: string, query: S.DrainQuery): Promise<S.DrainStep> { return this.run('drain', queue, (ctx) => drainIn(ctx, query)); }

  /** The queue's jobs, settings, schedulers, events and workers go at once (each call here is atomic). */
  obliterate(queue: string, force: boolean): Promise<S.ObliterateOutcome> {
    return this.run('obliterate', queue, ({ q }) => obliterateIn(q, force, () => {
      this.queues.delete(queue);
      this.streams.delete(queue);
      this.workers.forgetQueue(queue);
    }));
  }
}
