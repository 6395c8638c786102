import type { BatchHandler } from './batch.js';
import { BatchCollector } from './batch-collector.js';
import { InvalidArgumentError } from './errors.js';
import type { ActiveJob } from './active-job.js';
import { describe } from './options.js';
import { handlerFileUrl, resolveSandboxOptions } from './sandbox/options.js';
import { SandboxPool } from './sandbox/pool.js';
import type { ResolvedWorkerOptions } from './worker-options.js';

/** Runs one job; what it returns is stored as the job's result (JSON). */
export type Handler<Data = unknown, Result = unknown> = (job: ActiveJob<Data, Result>) => Promise<Result> | Result;

/** What a Worker runs its jobs with, and what it stops once closed (a sandbox pool). */
export interface WorkerHandler<Data, Result> {
  readonly run: Handler<Data, Result>;
  close(): Promise<void>;
}

const NOTHING_TO_CLOSE = (): Promise<void> => Promise.resolve();

/**
 * A Worker's handler as given: a function runs in the worker's own event
 * loop (with options.batch, a batch handler fed by a BatchCollector); a file
 * path or file: URL is a handler module run in sandboxes
 * (lib/engine/sandbox/), as Worker options.sandbox says.
 */
export function workerHandler<Data, Result>(
  queue: string,
  handler: unknown,
  o: ResolvedWorkerOptions,
  report: (err: unknown, context: string) => void,
): WorkerHandler<Data, Result> {
  if (typeof handler === 'function') {
    if (o.sandbox) {
      throw new InvalidArgumentError('Worker options.sandbox', 'applies to a handler file, and the handler is a function', "pass the handler module's path or file: URL instead of the function, or drop options.sandbox");
    }
    if (o.batch) {
      const collector = new BatchCollector(handler as BatchHandler<Data, Result>, o.batch, Math.floor(o.concurrency / o.batch.size));
      return { run: collector.run, close: NOTHING_TO_CLOSE };
    }
    return { run: handler as Handler<Data, Result>, close: NOTHING_TO_CLOSE };
  }
  if (o.batch) {
    throw new InvalidArgumentError('Worker options.batch', 'needs a batch handler function (jobs, batch) => results; a sandboxed handler file runs one job at a time', 'drop options.batch, or pass a function');
  }
  if (typeof handler !== 'string' && !(handler instanceof URL)) {
    throw new InvalidArgumentError('Worker handler', `must be a function (job) => result, or the path or file: URL of a handler module, got ${describe(handler)}`);
  }
  const pool = new SandboxPool(handlerFileUrl(handler, 'Worker handler'), o.sandbox ?? resolveSandboxOptions(undefined, 'Worker options.sandbox'), queue, report);
  return { run: (job) => pool.run(job as ActiveJob) as Promise<Result>, close: () => pool.close() };
}
