import type { Lease, Store } from './store.js';
import { StoreError } from './store.js';
import { LeaseShards, shardIndex } from './shard-route.js';
import { ShardedNotify } from './sharded-notify.js';
import { ShardedSchedulers } from './sharded-schedulers.js';

/**
 * A flow names a sharded queue: flows cross queues through one parent hash each, which a sharded queue does not have.
 *
 * Do: put the flow's jobs on queues without `shards`.
 */
export class ShardedFlowError extends StoreError {
  constructor(readonly queue: string) {
    super(`queue "${queue}" is sharded: flows cannot add jobs to it; give the flow's jobs a queue without shards`, true);
    this.name = 'ShardedFlowError';
  }
}

/** What every part of a sharded queue's store needs: the store beneath, the shard names, and where each held job came from. */
export abstract class ShardedBase {
  readonly notify: ShardedNotify;
  readonly schedulers: Store['schedulers'];
  protected names?: readonly string[];
  protected placing?: Promise<readonly string[]>;
  protected readonly leases = new LeaseShards();
  protected turn = 0;

  constructor(
    readonly base: Store,
    readonly queue: string,
    readonly count: number,
  ) {
    this.notify = new ShardedNotify(base.notify, queue, (physical) => this.names?.indexOf(physical) ?? -1, () => this.names);
    this.schedulers = base.schedulers && new ShardedSchedulers(base.schedulers, queue, () => this.shards());
  }

  get clock(): Store['clock'] {
    return this.base.clock;
  }

  get outage(): Store['outage'] {
    return this.base.outage;
  }

  /** The shards' queue names, placed once per queue (placeShards keeps them in Redis). */
  shards(): Promise<readonly string[]> {
    if (this.names) return Promise.resolve(this.names);
    this.placing ??= (this.base.placeShards?.(this.queue, this.count) ?? Promise.resolve(Array.from({ length: this.count }, (_, k) => `${this.queue}~${k}`))).then(
      (names) => (this.names = names),
      (err: unknown) => {
        this.placing = undefined;
        throw err;
      },
    );
    return this.placing;
  }

  protected async at(shard: number): Promise<string> {
    return (await this.shards())[shard]!;
  }

  protected async each<T>(op: (name: string, shard: number) => Promise<T>): Promise<T[]> {
    const names = await this.shards();
    return Promise.all(names.map((name, k) => op(name, k)));
  }

  /** An operation on a job known by id: its id's shard first, then the others (grouped or deduplicated jobs live by another key). */
  protected async byId<T>(id: string, op: (name: string) => Promise<T>, found: (outcome: T) => boolean): Promise<T> {
    const names = await this.shards();
    const home = shardIndex(`i:${id}`, this.count);
    const first = await op(names[home]!);
    if (found(first)) return first;
    const others = await Promise.all(names.filter((_, k) => k !== home).map((name) => op(name)));
    return others.find(found) ?? first;
  }

  protected async onLease<T>(lease: Lease, op: (name: string) => Promise<T>, finishes = true): Promise<T> {
    const outcome = await op(await this.at(this.leases.of(lease.id, this.count)));
    if (finishes) this.leases.done(lease.id);
    return outcome;
  }

  ping(): Promise<number> {
    return this.base.ping();
  }

  connect(): Promise<void> {
    return this.base.connect();
  }

  disconnect(): Promise<void> {
    return this.base.disconnect();
  }

  async shardCount(queue: string): Promise<number | undefined> {
    return queue === this.queue ? this.count : this.base.shardCount?.(queue);
  }

  async placeShards(queue: string, count: number): Promise<readonly string[]> {
    if (queue === this.queue) throw new StoreError(`queue "${queue}" is already sharded`, true);
    if (!this.base.placeShards) throw new StoreError('this store cannot shard queues', true);
    return this.base.placeShards(queue, count);
  }

}
