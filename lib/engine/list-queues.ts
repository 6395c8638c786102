import type { Store } from '../store/store.js';

/**
 * The queues that exist under the store's prefix (any that ever had a job),
 * sorted by name. Scans the keyspace in short steps: for operators' tools
 * (the `spool` CLI, a dashboard), not for code that runs per job.
 *
 * @example
 * for (const name of await listQueues(store)) console.log(name, await new Queue(name, { store }).getCounts());
 */
export function listQueues(store: Store): Promise<string[]> {
  return store.listQueues();
}
