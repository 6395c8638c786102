import { ShardedStore } from '../store/sharded-store.js';
import type { Store } from '../store/store.js';
import { describe } from '../common/validation.js';
import { InvalidArgumentError } from './errors.js';

/** Most shards one queue may have: each is a full queue with its own keys, scripts calls and wake-ups. */
export const MAX_SHARDS = 256;

/**
 * The store a Queue, Worker or QueueEvents of `queue` talks to: the store
 * itself, or with `shards` > 1 a view that spreads the queue over that many
 * physical queues (lib/store/sharded-store.ts). Every Queue, Worker and
 * QueueEvents of a sharded queue must pass the same `shards`: the placement
 * kept in Redis refuses another count (ShardCountMismatchError).
 */
export function storeFor(store: Store, queue: string, shards: unknown, field: string): Store {
  if (shards === undefined || shards === 1) return store;
  if (typeof shards !== 'number' || !Number.isInteger(shards) || shards < 1 || shards > MAX_SHARDS) {
    throw new InvalidArgumentError(field, `must be an integer from 1 to ${MAX_SHARDS}, got ${describe(shards)}`, 'use at least as many shards as the cluster has masters, e.g. shards: 3');
  }
  if (store instanceof ShardedStore) throw new InvalidArgumentError(field, `is set on a store that already shards queue "${store.queue}"`, 'pass the RedisStore itself');
  return new ShardedStore(store, queue, shards);
}

/** How many shards a store view spreads `queue` over (1: not sharded). */
export function shardsOf(store: Store, queue: string): number {
  return store instanceof ShardedStore && store.queue === queue ? store.count : 1;
}
