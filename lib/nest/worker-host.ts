import type { Worker } from '../engine/worker.js';
import { SpoolError } from '../engine/errors.js';

/** Where the host puts a processor's worker; a symbol, so no user field can clash with it. */
const WORKER = Symbol('spool.worker');

/**
 * `this.worker` of a `WorkerHost` was read before Spool built the worker
 * (the processor's constructor, or another provider's factory): workers exist
 * from module init on.
 *
 * Do: read `this.worker` in `onModuleInit` or later.
 */
export class WorkerNotReadyError extends SpoolError {
  constructor(readonly processor: string) {
    super(`${processor}.worker is not ready: Spool builds the worker at module init; read it in onModuleInit, onApplicationBootstrap or a handler, not in the constructor`);
  }
}

/**
 * Optional base class of a `@Processor` class: `this.worker` is the worker
 * pool that runs it (the one pool of its queue when several classes share
 * it), to pause, resume or listen to. Unlike BullMQ's WorkerHost it calls no
 * `process()`: handlers stay `@OnJob` methods.
 *
 * @example
 * \@Processor('images')
 * export class ImageProcessor extends WorkerHost {
 *   \@OnJob('resize') resize(job: ActiveJob) { ... }
 *   async onMaintenance() { await this.worker.pause(); }
 * }
 */
export class WorkerHost<Data = unknown, Result = unknown> {
  /** Set by the host (the symbol is not exported). */
  [WORKER]?: Worker<Data, Result>;

  /** The processor's worker; throws WorkerNotReadyError before module init. */
  get worker(): Worker<Data, Result> {
    const worker = this[WORKER];
    if (!worker) throw new WorkerNotReadyError(this.constructor.name);
    return worker;
  }
}

/** Gives a WorkerHost instance its worker (any other instance is left alone). */
export function attachWorker(instance: unknown, worker: Worker): void {
  if (instance instanceof WorkerHost) (instance as WorkerHost)[WORKER] = worker;
}
