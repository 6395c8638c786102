import type { ChildRef, Store } from '../store/store.js';

/**
 * Cancels the unfinished children of a cancelled flow parent, in their own
 * queues and on down the tree. Each child cancelled at once tells its parent
 * (store.cancel does; already cancelled, the parent just records it); a
 * running child gets a cancel request and reports when its worker ends it.
 */
export async function cancelChildren(store: Store, children: readonly ChildRef[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      const outcome = await store.cancel(child.queue, child.id);
      await cancelChildren(store, outcome.children);
    }),
  );
}
