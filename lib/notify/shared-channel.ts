import type { Unsubscribe } from './notify-adapter.js';
import type { WriteLock } from './write-lock.js';

export interface ChannelSubscriber {
  subscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
  unsubscribe(channel: string, listener: (message: string) => void): Promise<unknown>;
}

/**
 * One Redis subscription for a channel, shared by every listener of the
 * process (seed 000's shared-listener pattern): subscribed when the first
 * listener arrives, unsubscribed when the last one leaves, every change made
 * under the adapter's write lock. Running or not running, nothing in between.
 */
export class SharedChannel {
  private readonly listeners = new Set<(message: string) => void>();

  constructor(
    private readonly channel: string,
    private readonly subscriber: () => Promise<ChannelSubscriber>,
    private readonly lock: WriteLock,
    private readonly onListenerError: (err: unknown) => void,
  ) {}

  async add(listener: (message: string) => void): Promise<Unsubscribe> {
    await this.lock.run(async () => {
      if (this.listeners.size === 0) await (await this.subscriber()).subscribe(this.channel, this.dispatch);
      this.listeners.add(listener);
    });
    let removed = false;
    return () =>
      this.lock.run(async () => {
        if (removed) return;
        removed = true;
        if (this.listeners.size === 1 && this.listeners.has(listener)) {
          // The last listener hears until Redis confirms the unsubscribe: a message
          // published before it arrives first (a worker's pushes: jobs leased to it).
          await (await this.subscriber()).unsubscribe(this.channel, this.dispatch);
        }
        this.listeners.delete(listener);
      });
  }

  get size(): number {
    return this.listeners.size;
  }

  private readonly dispatch = (message: string): void => {
    for (const listener of this.listeners) {
      try {
        listener(message);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  };
}
