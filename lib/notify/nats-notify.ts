// Types only (erased): the runtime packages load lazily in nats-peers.ts.
import type { NatsConnection, Subscription } from '@nats-io/nats-core';
import { SpoolError } from '../common/errors.js';
import { stderrLogger, type SpoolLogger } from '../logger.js';
import { NatsUnavailableError } from './nats-errors.js';
import { KvHints } from './nats-hints.js';
import { decodeNats, encodeNats, hintKey, resolveNatsOptions, type NatsNotifyOptions, type ResolvedNatsOptions } from './nats-options.js';
import { loadKv, loadTransport } from './nats-peers.js';
import type { Announcement, FinishedMessage, NotifyAdapter, OwnershipMessage, SchedMessage, Unsubscribe } from './notify-adapter.js';
import { SharedChannel, type ChannelSubscriber } from './shared-channel.js';
import { WriteLock } from './write-lock.js';

export type { NatsNotifyOptions } from './nats-options.js';
export { NatsPeerMissingError, NatsUnavailableError } from './nats-errors.js';

interface Opened {
  readonly nc: NatsConnection;
  readonly hints: KvHints | undefined;
}

/**
 * Wake-ups, lost leases and finished jobs over NATS core pub/sub (seed 003):
 * three subjects under `subjectPrefix` (`.sched`, `.owls`, `.done`), one
 * shared subscription per subject per adapter, opened with the first
 * listener and closed with the last, every change under one write lock. The
 * store's scripts report what to announce and the store passes it to
 * announce(). With `kvBucket` the wake-hint budget lives in JetStream KV
 * (see KvHints): N new jobs wake about N idle workers. Without it every
 * idle worker wakes on every announcement (more claim calls, never a missed
 * wake-up). NATS keeps no messages for absent subscribers: after a
 * reconnect the engine looks for work itself (onReconnect), and its slow
 * poll covers the gap.
 *
 * @example
 * const notify = new NatsNotify({ servers: 'nats://127.0.0.1:4222', kvBucket: 'spool_hints' });
 * const store = new RedisStore({ url: 'redis://127.0.0.1:6379', notify });
 */
export class NatsNotify implements NotifyAdapter {
  private readonly options: ResolvedNatsOptions;
  private readonly logger: SpoolLogger;
  private readonly lock = new WriteLock();
  private readonly subscriber: NatsSubscriber;
  private readonly sched: SharedChannel;
  private readonly owls: SharedChannel;
  private readonly done: SharedChannel;
  private readonly reconnectListeners = new Set<() => void>();
  private readonly pending = new Set<Promise<void>>();
  private opening: Promise<Opened> | undefined;
  private closed = false;
  private dropping = false;

  constructor(options: NatsNotifyOptions) {
    this.options = resolveNatsOptions(options);
    this.logger = options.logger ?? stderrLogger;
    this.subscriber = new NatsSubscriber(() => this.open().then((o) => o.nc));
    const onError = (err: unknown) => this.logger.error('a notification listener threw', err);
    const subject = (name: string) => `${this.options.subjectPrefix}.${name}`;
    this.sched = new SharedChannel(subject('sched'), () => Promise.resolve(this.subscriber), this.lock, onError);
    this.owls = new SharedChannel(subject('owls'), () => Promise.resolve(this.subscriber), this.lock, onError);
    this.done = new SharedChannel(subject('done'), () => Promise.resolve(this.subscriber), this.lock, onError);
  }

  /** Connects now (else on first use): NatsUnavailableError when no server answers. Idempotent. */
  async connect(): Promise<void> {
    await this.open();
  }

  onScheduled(listener: (message: SchedMessage) => void): Promise<Unsubscribe> {
    return this.sched.add((raw) => {
      const m = decodeNats(raw);
      if (m?.channel === 'sched') listener(m.message);
    });
  }

  onOwnershipLost(listener: (message: OwnershipMessage) => void): Promise<Unsubscribe> {
    return this.owls.add((raw) => {
      const m = decodeNats(raw);
      if (m?.channel === 'owls') listener(m.message);
    });
  }

  onFinished(listener: (message: FinishedMessage) => void): Promise<Unsubscribe> {
    return this.done.add((raw) => {
      const m = decodeNats(raw);
      if (m?.channel === 'done') listener(m.message);
    });
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  /**
   * Publishes what a transition reported. New waiting work first adds its
   * hints to the KV budget, then wakes. Never throws: the job is stored
   * either way, and a lost announcement is found by the workers' poll.
   */
  announce(announcements: readonly Announcement[]): void {
    if (this.closed) return;
    const sent = this.open().then(async ({ nc, hints }) => {
      for (const a of announcements) {
        if (hints && a.channel === 'sched' && a.message.kind === 'waiting' && a.hints > 0) {
          await hints.provide(a.message.queue, a.hints).catch((err: unknown) => this.dropped('adding wake hints', err));
        }
        nc.publish(`${this.options.subjectPrefix}.${a.channel}`, encodeNats(a));
      }
      this.dropping = false;
    });
    const tracked = sent.catch((err: unknown) => this.dropped('announcing', err));
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  /** With a KV bucket: the hints this worker may spend (KvHints.take). Without: every woken worker claims. */
  async takeWakeHints(queue: string, want: number): Promise<number> {
    const { hints } = await this.open();
    return hints ? hints.take(queue, want) : want;
  }

  /** Waits for announcements under way, then drains the connection. Idempotent. */
  async close(): Promise<void> {
    await this.lock.run(async () => {
      if (this.closed) return;
      this.closed = true;
      await Promise.allSettled([...this.pending]);
      const opening = this.opening;
      this.opening = undefined;
      const opened = await opening?.catch(() => undefined);
      if (opened && !opened.nc.isClosed()) await opened.nc.drain().catch(() => opened.nc.close());
    });
  }

  /** One line per outage, not one per announcement. */
  private dropped(what: string, err: unknown): void {
    if (this.dropping) return;
    this.dropping = true;
    this.logger.warn(`NATS notify: ${what} failed (${err instanceof Error ? err.message : String(err)}); workers find new work by polling until NATS answers`);
  }

  private open(): Promise<Opened> {
    if (this.closed) return Promise.reject(new SpoolError('the NATS notify adapter is closed'));
    this.opening ??= this.connectNow().catch((err: unknown) => {
      // The next use tries again.
      this.opening = undefined;
      throw err;
    });
    return this.opening;
  }

  private async connectNow(): Promise<Opened> {
    const { connect } = await loadTransport();
    const { servers, kvBucket } = this.options;
    let nc: NatsConnection;
    try {
      nc = await connect({ servers: [...servers], name: 'spool', maxReconnectAttempts: -1, reconnectTimeWait: 250, timeout: this.options.connectTimeout });
    } catch (err) {
      throw new NatsUnavailableError(servers, err);
    }
    void this.watchStatus(nc);
    if (kvBucket === undefined) return { nc, hints: undefined };
    try {
      const { Kvm } = await loadKv();
      const kv = await new Kvm(nc).create(kvBucket, { ttl: 60_000 });
      return { nc, hints: new KvHints(kv, (queue) => hintKey(this.options.subjectPrefix, queue)) };
    } catch (err) {
      await nc.close().catch(() => undefined);
      if (err instanceof SpoolError) throw err;
      throw new SpoolError(`NATS notify: could not open the KV bucket "${kvBucket}" (${err instanceof Error ? err.message : String(err)}): run nats-server with JetStream (-js) or leave kvBucket out`, { cause: err });
    }
  }

  /** The client re-subscribes by itself after a reconnect; messages sent meanwhile are lost, so listeners are told. */
  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === 'disconnect') this.logger.warn('NATS notify: connection lost; reconnecting');
      if (status.type !== 'reconnect') continue;
      this.logger.log('NATS notify: reconnected');
      for (const listener of this.reconnectListeners) {
        try {
          listener();
        } catch (err) {
          this.logger.error('a reconnect listener threw', err);
        }
      }
    }
  }
}

/** SharedChannel's subscriber on a NATS connection: one Subscription per subject. */
class NatsSubscriber implements ChannelSubscriber {
  private readonly subscriptions = new Map<string, Subscription>();

  constructor(private readonly connection: () => Promise<NatsConnection>) {}

  async subscribe(subject: string, listener: (message: string) => void): Promise<void> {
    const nc = await this.connection();
    const subscription = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err === null) listener(msg.string());
      },
    });
    this.subscriptions.set(subject, subscription);
    // The server knows of the subscription once flush returns: nothing published after it is missed.
    await nc.flush();
  }

  async unsubscribe(subject: string): Promise<void> {
    this.subscriptions.get(subject)?.unsubscribe();
    this.subscriptions.delete(subject);
  }
}
