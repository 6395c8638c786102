import type { SpoolLogger } from '../logger.js';
import type { FinishedMessage, NotifyAdapter, OwnershipMessage, SchedMessage, Unsubscribe } from './notify-adapter.js';

export { parseFinished, parseOwnership, parseSched } from './messages.js';
import { parseFinished, parseOwnership, parseSched } from './messages.js';
import { SharedChannel, type ChannelSubscriber } from './shared-channel.js';
import { WriteLock } from './write-lock.js';

/** The subscriber side of a node-redis client (a duplicate of the command connection). */
export interface SubscriberClient extends ChannelSubscriber {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  on(event: string, listener: (...args: never[]) => void): unknown;
}

export interface RedisNotifyOptions {
  readonly schedChannel: string;
  readonly owlsChannel: string;
  /** Watched jobs that finished; subscribed only while someone waits. */
  readonly doneChannel: string;
  /** Creates the one subscriber connection, on first use. */
  readonly createSubscriber: () => SubscriberClient;
  readonly logger: SpoolLogger;
  /** The subscriber connection dropped (once per outage); default: a warning on the logger. */
  readonly onLost?: (err: Error) => void;
}

/**
 * Redis pub/sub wake-ups: one subscriber connection per adapter (per store,
 * so per process in the usual setup), created on first use; one shared
 * subscription per channel; node-redis re-subscribes after a reconnect and
 * the adapter then tells its listeners that messages may have been missed.
 */
export class RedisNotify implements NotifyAdapter {
  private readonly lock = new WriteLock();
  private readonly sched: SharedChannel;
  private readonly owls: SharedChannel;
  private readonly done: SharedChannel;
  private readonly reconnectListeners = new Set<() => void>();
  private readonly dropListeners = new Set<() => void>();
  private readonly others = new Map<string, SharedChannel>();
  private subscriber: Promise<SubscriberClient> | undefined;
  private closed = false;

  constructor(private readonly options: RedisNotifyOptions) {
    const onError = (err: unknown) => options.logger.error('a notification listener threw', err);
    this.sched = new SharedChannel(options.schedChannel, () => this.connection(), this.lock, onError);
    this.owls = new SharedChannel(options.owlsChannel, () => this.connection(), this.lock, onError);
    this.done = new SharedChannel(options.doneChannel, () => this.connection(), this.lock, onError);
  }

  async onScheduled(listener: (message: SchedMessage) => void): Promise<Unsubscribe> {
    return this.sched.add((raw) => {
      const message = parseSched(raw);
      if (message) listener(message);
    });
  }

  async onOwnershipLost(listener: (message: OwnershipMessage) => void): Promise<Unsubscribe> {
    return this.owls.add((raw) => {
      const message = parseOwnership(raw);
      if (message) listener(message);
    });
  }

  async onFinished(listener: (message: FinishedMessage) => void): Promise<Unsubscribe> {
    return this.done.add((raw) => {
      const message = parseFinished(raw);
      if (message) listener(message);
    });
  }

  /** Any other channel of this connection (a worker's pushes, lib/store/redis-store-base.ts): raw messages. */
  async onChannel(channel: string, listener: (message: string) => void): Promise<Unsubscribe> {
    let shared = this.others.get(channel);
    if (!shared) {
      shared = new SharedChannel(channel, () => this.connection(), this.lock, (err) => this.options.logger.error('a notification listener threw', err));
      this.others.set(channel, shared);
    }
    const off = await shared.add(listener);
    return async () => {
      await off();
      if (shared.size === 0) this.others.delete(channel);
    };
  }

  onReconnect(listener: () => void): () => void {
    this.reconnectListeners.add(listener);
    return () => this.reconnectListeners.delete(listener);
  }

  onDrop(listener: () => void): () => void {
    this.dropListeners.add(listener);
    return () => this.dropListeners.delete(listener);
  }

  async close(): Promise<void> {
    await this.lock.run(async () => {
      if (this.closed) return;
      this.closed = true;
      const pending = this.subscriber;
      this.subscriber = undefined;
      if (!pending) return;
      const client = await pending.catch(() => undefined);
      if (client?.isOpen) await client.close().catch(() => client.destroy());
    });
  }

  /** Called under the write lock only (SharedChannel mutations). */
  private connection(): Promise<SubscriberClient> {
    if (this.closed) return Promise.reject(new Error('the notification adapter is closed'));
    this.subscriber ??= this.open();
    return this.subscriber;
  }

  private async open(): Promise<SubscriberClient> {
    const client = this.options.createSubscriber();
    let readies = 0;
    let failing = false;
    client.on('error', (err: Error) => {
      // One line per outage, not one per reconnect attempt.
      if (!failing) {
        if (this.options.onLost) this.options.onLost(err);
        else this.options.logger.warn(`subscriber connection lost: ${err.message}; reconnecting`);
      }
      failing = true;
    });
    let down = false;
    // node-redis says 'reconnecting' as soon as the socket is gone (and again per failed attempt).
    client.on('reconnecting', () => {
      if (down || readies === 0) return;
      down = true;
      this.tell(this.dropListeners, 'a drop listener threw');
    });
    client.on('ready', () => {
      failing = false;
      down = false;
      readies += 1;
      if (readies > 1) this.tell(this.reconnectListeners, 'a reconnect listener threw');
    });
    await client.connect();
    return client;
  }

  private tell(listeners: ReadonlySet<() => void>, failure: string): void {
    for (const listener of listeners) {
      try {
        listener();
      } catch (err) {
        this.options.logger.error(failure, err);
      }
    }
  }
}
