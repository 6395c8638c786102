import type { Announcement, FinishedMessage, NotifyAdapter, OwnershipMessage, SchedMessage, Unsubscribe } from '../notify/notify-adapter.js';

/**
 * The notify adapter as a sharded queue's users see it: messages about any
 * of its shards arrive under the logical queue's name (a worker of `orders`
 * wakes for work in `orders~2`), and the shards announced as having new
 * waiting work are remembered, so the woken claim goes to them and spends
 * their wake-hint budget rather than searching every shard.
 */
export class ShardedNotify implements NotifyAdapter {
  private readonly woken = new Set<number>();
  readonly announce?: (announcements: readonly Announcement[]) => void;
  readonly takeWakeHints?: (queue: string, want: number) => Promise<number>;

  constructor(
    private readonly base: NotifyAdapter,
    private readonly logical: string,
    private readonly shardOf: (physical: string) => number,
    private readonly names: () => readonly string[] | undefined,
  ) {
    if (base.announce) this.announce = (a) => base.announce!(a);
    if (base.takeWakeHints) {
      const take = base.takeWakeHints.bind(base);
      // NATS keeps the budget per physical queue: ask the woken shard's (the first shard when none is known).
      this.takeWakeHints = (queue, want) => {
        if (queue !== this.logical) return take(queue, want);
        const shard = [...this.woken][0] ?? 0;
        return take(this.names()?.[shard] ?? queue, want);
      };
    }
  }

  /** Shards announced since the last woken claim, cleared as they are taken. */
  takeWoken(): number[] {
    const shards = [...this.woken];
    this.woken.clear();
    return shards;
  }

  /** Shards whose announcements a woken claim did not reach (it was filled first). */
  rewake(shards: readonly number[]): void {
    for (const k of shards) this.woken.add(k);
  }

  private rename<M extends { readonly queue: string }>(message: M): M {
    const shard = this.shardOf(message.queue);
    return shard === -1 ? message : { ...message, queue: this.logical };
  }

  onScheduled(listener: (message: SchedMessage) => void): Promise<Unsubscribe> {
    return this.base.onScheduled((message) => {
      const shard = this.shardOf(message.queue);
      if (shard !== -1 && message.kind === 'waiting') this.woken.add(shard);
      listener(shard === -1 ? message : { ...message, queue: this.logical });
    });
  }

  onOwnershipLost(listener: (message: OwnershipMessage) => void): Promise<Unsubscribe> {
    return this.base.onOwnershipLost((message) => listener(this.rename(message)));
  }

  onFinished(listener: (message: FinishedMessage) => void): Promise<Unsubscribe> {
    return this.base.onFinished((message) => listener(this.rename(message)));
  }

  onReconnect(listener: () => void): () => void {
    return this.base.onReconnect(listener);
  }

  onDrop(listener: () => void): () => void {
    return this.base.onDrop?.(listener) ?? (() => undefined);
  }

  /** The store's adapter belongs to the store: closing a view of it closes nothing. */
  async close(): Promise<void> {}
}
