/**
 * Waits until `condition` holds, checking every `interval` ms, and fails with
 * `message` after `timeout` ms. Tests wait for conditions, never for time.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeout = 5000, interval = 10, message = 'condition' }: { timeout?: number; interval?: number; message?: string } = {},
): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${message}`);
    await new Promise((r) => setTimeout(r, interval));
  }
}

/** Resolves with the arguments of the next `event` of `emitter`, or rejects after `timeout` ms. */
export function nextEvent<T extends unknown[]>(
  emitter: { once(event: string, listener: (...args: T) => void): unknown },
  event: string,
  timeout = 5000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "${event}" event within ${timeout} ms`)), timeout);
    emitter.once(event, (...args: T) => {
      clearTimeout(timer);
      resolve(args);
    });
  });
}
