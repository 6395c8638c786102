import { BatchCollector } from '../engine/batch-collector.js';
import type { Batch } from '../engine/batch.js';
import { InvalidArgumentError } from '../engine/errors.js';
import type { ActiveJob } from '../engine/active-job.js';
import { SandboxPool } from '../engine/sandbox/pool.js';
import { handlerFileUrl, resolveSandboxOptions, SANDBOX_KEYS } from '../engine/sandbox/options.js';
import { SpoolBootstrapError } from './errors.js';
import type { HandlerEntry } from './processor-handlers.js';
import type { ProcessorPool } from './processor-pools.js';

/** A processor method taking a batch. */
type BatchMethod = (jobs: ActiveJob[], batch: Batch) => unknown;

/**
 * How a processor's jobs run besides one `@OnJob` method call per job: in a
 * sandbox pool (@Processor sandbox: the handler module, no methods), or
 * through a batch collector per `@OnJob` with `batch`. DTO validation stays
 * in the host, before a job reaches either.
 */
export interface ProcessorModes {
  readonly sandbox?: SandboxPool;
  readonly batches: ReadonlyMap<HandlerEntry, BatchCollector<unknown, unknown>>;
  /** Stops the sandboxes (after the worker closed). */
  close(): Promise<void>;
}

/**
 * Refuses `batch` among a processor's (or the module's `workers`) options, and
 * `sandbox` among the module's: their place is `@OnJob` and `@Processor`.
 */
export function misplacedModes(d: ProcessorPool, moduleWorkers: object | undefined): void {
  const at = `@Processor('${d.metadata.queue}') of ${d.className}`;
  if ('batch' in d.metadata.options) throw new SpoolBootstrapError(`${at}: options.batch`, 'is an @OnJob option (a batch holds jobs of one name)', "use @OnJob('name', { batch: { size } })");
  if (moduleWorkers && 'batch' in moduleWorkers) throw new SpoolBootstrapError('QueueModule.forRoot() workers.batch', 'is an @OnJob option', "use @OnJob('name', { batch: { size } })");
  if (moduleWorkers && 'sandbox' in moduleWorkers) throw new SpoolBootstrapError('QueueModule.forRoot() workers.sandbox', 'is a @Processor option (each sandboxed processor names its module)', "use @Processor('queue', { sandbox: { file } })");
}

/**
 * The worker concurrency a processor gets: each job of a batch holds a
 * slot, so it is at least the largest batch size (and that by default).
 */
export function processorConcurrency(d: ProcessorPool, configured: number | undefined): number | undefined {
  const sizes = [...d.handlers.byName.values(), ...(d.handlers.fallback ? [d.handlers.fallback] : [])].flatMap((e) => (e.batch ? [e.batch.size] : []));
  if (sizes.length === 0) return configured;
  const largest = Math.max(...sizes);
  if (configured === undefined) return largest;
  if (configured < largest) {
    throw new SpoolBootstrapError(`@Processor('${d.metadata.queue}') options.concurrency of ${d.className}`, `(${configured}) is below its largest @OnJob batch size (${largest}): each job of a batch holds a slot`, 'leave concurrency out, or raise it');
  }
  return configured;
}

export function processorModes(
  d: ProcessorPool,
  concurrency: number,
  instanceFor: (entry: HandlerEntry, job: ActiveJob) => Promise<Record<string, unknown>>,
  report: (err: unknown, context: string) => void,
): ProcessorModes {
  const { queue } = d.metadata;
  const sandboxOptions = d.metadata.options.sandbox;
  if (sandboxOptions !== undefined) {
    const at = `@Processor('${queue}') options.sandbox of ${d.className}`;
    const methods = [...d.handlers.byName.values(), ...(d.handlers.fallback ? [d.handlers.fallback] : [])].map((e) => `${d.className}.${e.method}`);
    if (methods.length > 0) throw new SpoolBootstrapError(at, `runs the handler module, so ${methods.join(', ')} would never run`, 'move the handlers into the module, or drop sandbox');
    try {
      const options = resolveSandboxOptions(sandboxOptions, at, [...SANDBOX_KEYS, 'file']);
      const pool = new SandboxPool(handlerFileUrl(sandboxOptions.file, `${at}.file`), options, queue, report);
      return { sandbox: pool, batches: new Map(), close: () => pool.close() };
    } catch (err) {
      if (err instanceof InvalidArgumentError) throw new SpoolBootstrapError(at, `is invalid: ${err.message}`);
      throw err;
    }
  }
  const batches = new Map<HandlerEntry, BatchCollector<unknown, unknown>>();
  for (const entry of [...d.handlers.byName.values(), ...(d.handlers.fallback ? [d.handlers.fallback] : [])]) {
    if (!entry.batch) continue;
    const call = async (jobs: ActiveJob[], batch: Batch): Promise<readonly unknown[] | void> => {
      // A request-scoped processor gets one instance per batch, resolved for its first job.
      const instance = await instanceFor(entry, jobs[0]!);
      return (await (instance[entry.method] as BatchMethod).call(instance, jobs, batch)) as readonly unknown[] | void;
    };
    batches.set(entry, new BatchCollector(call, entry.batch, Math.floor(concurrency / entry.batch.size)));
  }
  return { batches, close: () => Promise.resolve() };
}
