import type { OwnershipMessage, SchedMessage, Unsubscribe } from '../notify/notify-adapter.js';
import { releaseForStore } from '../store/clock.js';
import type { ReapOutcome } from '../store/store.js';
import type { Claimer } from './claimer.js';
import { LeaseLostError } from './errors.js';
import { logStalled } from './failure-log.js';
import { LeaseKeeper } from './lease-keeper.js';
import { Promoter } from './promoter.js';
import { Reaper } from './reaper.js';
import { WorkerHeartbeat } from './worker-heartbeat.js';
import type { Slots } from './slots.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

export interface UpkeepOptions<Data, Result> {
  readonly queue: string;
  /** The worker's id: its push list (Store.onPushed). */
  readonly workerId: string;
  readonly options: ResolvedWorkerOptions;
  readonly claimer: Claimer;
  readonly slots: Slots<Data, Result>;
  /** False once the worker is closing: wake-ups are ignored. */
  readonly running: () => boolean;
  /** The worker is paused (worker.pause()): its heartbeat says so. */
  readonly paused: () => boolean;
  /** A pause (true) or resume (false) asked of this worker through its queue (queue.pauseWorker). */
  readonly onRequest: (pause: boolean) => void;
  readonly onReaped: (outcomes: readonly ReapOutcome[]) => void;
  readonly report: (err: unknown, context: string) => void;
}

/**
 * A worker's background duties around its jobs: renewing leases, reaping
 * expired leases of dead workers, promoting delayed jobs, polling, and the
 * pub/sub messages that wake it (new work) or take a job away (lost lease, cancel).
 */
export class Upkeep<Data, Result> {
  readonly promoter: Promoter;
  private readonly leaseKeeper: LeaseKeeper;
  private readonly reaper: Reaper;
  private readonly heartbeat: WorkerHeartbeat;
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribe: Unsubscribe[] = [];
  private offReconnect: (() => void) | undefined;
  private offDrop: (() => void) | undefined;
  private offPushes: Unsubscribe | undefined;
  private subscribingPushes: Promise<void> | undefined;
  /** The subscriber connection is down (NotifyAdapter.onDrop): a push would be lost, so the worker is not named. */
  private deaf = false;

  constructor(private readonly u: UpkeepOptions<Data, Result>) {
    const { queue, options: o, slots, report } = u;
    const { store } = o;
    this.leaseKeeper = new LeaseKeeper({
      store,
      queue,
      lockMs: o.lockDuration,
      renewMs: o.lockRenewTime,
      held: () => slots.leases(),
      onOutcome: (lease, outcome) => {
        if (outcome === 'lost') slots.signal(lease.id, lease.token, 'lost');
        else if (outcome === 'cancel-requested') slots.signal(lease.id, lease.token, 'cancel');
      },
      onError: (err, since) => this.onRenewFailure(err, since),
    });
    this.reaper = new Reaper({
      store,
      queue,
      intervalMs: o.stalledInterval,
      maxStalledCount: o.maxStalledCount,
      onReaped: (outcomes) => {
        for (const { id, state } of outcomes) logStalled(o.logger, o.logFailures, queue, id, state, o.maxStalledCount);
        u.onReaped(outcomes);
      },
      onError: (err) => report(err, 'reaping expired leases failed'),
    });
    this.promoter = new Promoter({ store, queue, onError: (err) => report(err, 'promoting delayed jobs failed') });
    this.heartbeat = new WorkerHeartbeat({ store, queue, workerId: u.workerId, concurrency: o.concurrency, running: () => slots.size, paused: u.paused, onRequest: u.onRequest, report });
  }

  /** The worker hears pushes (Store.onPushed): its claims that run dry may name it to the next add. */
  get pushable(): boolean {
    return this.offPushes !== undefined && !this.deaf;
  }

  /** Subscribes before the first claim, so no wake-up (or push) falls between the two. */
  async listen(): Promise<void> {
    const { store } = this.u.options;
    const { notify } = store;
    this.unsubscribe.push(await notify.onScheduled((m) => this.onSched(m)));
    this.unsubscribe.push(await notify.onOwnershipLost((m) => this.onOwnershipLost(m)));
    await this.listenPushes();
    this.offDrop = notify.onDrop?.(() => this.onDrop());
    this.offReconnect = notify.onReconnect(() => {
      // Messages sent while the subscription was down are lost: look for work ourselves.
      this.deaf = false;
      this.promoter.arm(0);
      this.u.claimer.look();
    });
  }

  /** Listens on the worker's push list (at start, and when a paused worker resumes; one receiver however often asked). */
  listenPushes(): Promise<void> {
    if (this.offPushes) return Promise.resolve();
    this.subscribingPushes ??= (async () => {
      // Pushed jobs are leased to this worker already: taken even while closing or paused (the worker hands them back).
      this.offPushes = await this.u.options.store.onPushed?.(this.u.queue, this.u.workerId, (jobs) => this.u.claimer.pushed(jobs));
    })().finally(() => (this.subscribingPushes = undefined));
    return this.subscribingPushes;
  }

  /** The workers list shows a change (a pause) now rather than at the next heartbeat. */
  beatNow(): void {
    this.heartbeat.refresh();
  }

  start(): void {
    this.heartbeat.start();
    this.leaseKeeper.start();
    this.reaper.start();
    this.promoter.start();
    this.pollTimer = releaseForStore(setInterval(() => {
      if (this.u.claimer.free() > 0) this.u.claimer.fill();
    }, this.u.options.pollInterval), this.u.options.store);
  }

  /**
   * Closing, first step: no more polling, promotion or reaping (leases are
   * still renewed). Resolves once the promote or reap round under way has
   * ended: nothing the worker started calls the store after close().
   */
  async stopLooking(): Promise<void> {
    clearInterval(this.pollTimer);
    await Promise.all([this.promoter.stop(), this.reaper.stop()]);
  }

  /** Closing, last steps: once no job is held. */
  stopLeases(): Promise<void> {
    return this.leaseKeeper.stop();
  }

  /** Closing: the worker leaves its queue's workers list (queue.getWorkers()). */
  stopBeating(): Promise<void> {
    return this.heartbeat.stop();
  }

  /**
   * Closing, after the last claim was answered: no add names this worker any
   * more (push-off), then its push list is left. A push made before push-off
   * sits in the list ahead of the marker the receiver appends to stop
   * (PushReceiver.stop), so the worker still takes that push, and hands it back.
   */
  async stopPushes(): Promise<void> {
    // A subscription still being made (a resume) is left once it is made.
    await this.subscribingPushes?.catch(() => undefined);
    const off = this.offPushes;
    if (!off) return;
    this.offPushes = undefined;
    try {
      await this.u.options.store.stopPushes?.(this.u.queue, this.u.workerId);
    } finally {
      await off();
    }
  }

  async stopListening(): Promise<void> {
    try {
      await Promise.all(this.unsubscribe.map((off) => off()));
    } finally {
      this.offReconnect?.();
      this.offDrop?.();
    }
  }

  /**
   * The subscriber connection dropped: a job an add pushed to this worker now
   * would be leased to it unheard, wait out its lease and count a stall. So
   * the name goes (push-off, on the command connection, which may still be
   * up) and claims stop offering pushes until the subscription is back; the
   * reconnect's claim names the worker again. A claim sent before the drop
   * was seen runs before the push-off (one connection, in order).
   */
  private onDrop(): void {
    if (this.offPushes === undefined || this.deaf) return;
    this.deaf = true;
    this.u.options.store.stopPushes?.(this.u.queue, this.u.workerId).catch((err: unknown) => this.u.report(err, 'dropping the push name failed'));
  }

  private onSched(message: SchedMessage): void {
    if (message.queue !== this.u.queue || !this.u.running()) return;
    if (message.kind === 'delayed') this.promoter.arm(message.dueIn);
    else this.u.claimer.wake();
  }

  private onOwnershipLost(message: OwnershipMessage): void {
    if (message.queue === this.u.queue) this.u.slots.signal(message.id, message.token, message.kind === 'cancel' ? 'cancel' : 'lost');
  }

  private onRenewFailure(err: unknown, since: number): void {
    this.u.report(err, 'renewing leases failed');
    if (since <= this.u.options.lockDuration) return;
    // Past the lease we cannot prove we still hold these jobs: tell the handlers.
    for (const held of this.u.slots.values()) {
      held.abort(new LeaseLostError(held.job.id, `the lease (not renewed for ${since} ms)`));
    }
  }
}
