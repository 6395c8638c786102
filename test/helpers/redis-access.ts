import type { RedisStore } from '../../lib/index.js';
import type { QueueKeys } from '../../lib/store/keys.js';
import type { RedisClientLike } from '../../lib/store/redis-client.js';
import { redisAccess } from '../../lib/store/redis-access.js';
import { FLOW_SWEEP_GRACE_MS } from '../../lib/store/flow-intents.js';

/**
 * Tests that look at Redis directly (keys a script wrote, a server setting)
 * go through here: the store's raw connection and key names are not public API.
 */
export function commandOf(store: RedisStore, what = 'test'): RedisClientLike {
  return redisAccess(store).command(what);
}

/** The key names of one queue of this store. */
export function keysOf(store: RedisStore, queue: string): QueueKeys {
  return redisAccess(store).keysOf(queue);
}

/** Settles this queue's flow adds older than `graceMs` whose producer stopped between the two steps; returns how many parts. */
export function sweepFlows(store: RedisStore, queue: string, graceMs = FLOW_SWEEP_GRACE_MS): Promise<number> {
  return redisAccess(store).flows.sweep(queue, graceMs);
}

/** Delivers the notification a finished child left in its queue's outbox, and on up the tree. */
export async function deliverToParent(store: RedisStore, queue: string, childId: string): Promise<void> {
  await redisAccess(store).flows.deliver(queue, childId);
}

/** Delivers up to `limit` notifications left in a queue's outbox; returns how many. */
export function sweepOutbox(store: RedisStore, queue: string, limit: number): Promise<number> {
  return redisAccess(store).flows.sweepOutbox(queue, limit);
}
