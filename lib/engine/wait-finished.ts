import type { Store } from '../store/store.js';
import { describe } from '../common/validation.js';
import { JobCancelledError, InvalidArgumentError } from './errors.js';
import { JobFailedError, JobNotFoundError, WaitTimeoutError } from './flow-errors.js';

export interface WaitOptions {
  /** Give up after this many ms with WaitTimeoutError. Default: wait as long as it takes. */
  readonly timeout?: number;
}

/** Poll period of the fallback, for done messages lost while the subscription was down. */
const POLL_MS = 1000;

/**
 * Resolves with the job's result once it completed; rejects with
 * JobFailedError (dead letter), JobCancelledError, JobNotFoundError, or
 * WaitTimeoutError. Woken by the done channel (the job is marked as watched,
 * so its terminal script publishes), with a slow poll as fallback.
 */
export function waitUntilFinished<Result>(store: Store, queue: string, id: string, options: WaitOptions = {}): Promise<Result> {
  const timeout = options.timeout;
  if (timeout !== undefined && (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 0)) {
    throw new InvalidArgumentError('options.timeout', `must be a number of ms >= 0, got ${describe(timeout)}`);
  }
  return new Promise<Result>((resolve, reject) => {
    let settled = false;
    let off: (() => Promise<void>) | undefined;
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(poll);
      void off?.().catch(() => undefined);
      settle();
    };
    /** `announced`: the state a done message reported, for a job retention removed in the same step. */
    const check = async (announced?: string): Promise<void> => {
      if (settled) return;
      const job = await store.getJob(queue, id);
      if (!job) {
        if (announced === 'completed') finish(() => resolve(undefined as Result));
        else if (announced === 'cancelled') finish(() => reject(new JobCancelledError(id)));
        else if (announced === 'failed') finish(() => reject(new JobFailedError(queue, id, 'removed by retention', '', '')));
        else finish(() => reject(new JobNotFoundError(queue, id)));
        return;
      }
      if (job.state === 'completed') finish(() => resolve(parse<Result>(job.result)));
      else if (job.state === 'cancelled') finish(() => reject(new JobCancelledError(id)));
      else if (job.state === 'failed') {
        finish(() => reject(new JobFailedError(queue, id, job.error?.message ?? '', job.reason ?? '', job.error?.code ?? '')));
      }
    };
    const onError = (err: unknown) => finish(() => reject(err));
    const timer = timeout === undefined ? undefined : setTimeout(() => finish(() => reject(new WaitTimeoutError(queue, id, timeout))), timeout);
    const poll = setInterval(() => void check().catch(onError), POLL_MS);
    void (async () => {
      // Listen first, then mark the job and read it: a finish between the two is seen either way.
      const unsubscribe = await store.notify.onFinished((m) => {
        if (m.queue === queue && m.id === id) void check(m.state).catch(onError);
      });
      if (settled) return void (await unsubscribe());
      off = unsubscribe;
      if ((await store.watch(queue, id)) === null) return finish(() => reject(new JobNotFoundError(queue, id)));
      await check();
    })().catch(onError);
  });
}

function parse<T>(json: string | undefined): T {
  if (json === undefined) return undefined as T;
  try {
    return JSON.parse(json) as T;
  } catch {
    return undefined as T;
  }
}
