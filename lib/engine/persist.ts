import { StoreError } from '../store/store.js';

/** Errors that repeating cannot fix: a refused script, a bug, a closed store. Connection errors can be waited out. */
export function isPermanent(err: unknown): boolean {
  return err instanceof StoreError && err.permanent;
}

/**
 * Runs a store call until Redis answers. A worker's final writes (complete,
 * fail, release) must not be dropped by a blip: the scripts are idempotent for
 * the same lease token, so repeating a call whose reply was lost is safe.
 */
export async function persist<T>(
  call: () => Promise<T>,
  options: { readonly giveUp: () => boolean; readonly onRetry: (err: unknown, attempt: number) => void },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (err) {
      if (isPermanent(err) || options.giveUp()) throw err;
      options.onRetry(err, attempt);
      await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** Math.min(attempt, 6), 2000)));
    }
  }
}
