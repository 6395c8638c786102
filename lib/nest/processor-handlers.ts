import { resolveBatchOptions, type ResolvedBatchOptions } from '../engine/batch.js';
import { InvalidArgumentError } from '../engine/errors.js';
import type { DtoClass } from './dto.js';
import type { OnJobMetadata, ProcessorEvent } from './decorators.js';
import { SpoolBootstrapError } from './errors.js';
import { ON_JOB_METADATA, ON_WORKER_EVENT_METADATA } from './tokens.js';
import { describe } from '../common/validation.js';

export interface HandlerEntry {
  readonly method: string;
  readonly dto?: DtoClass;
  /** The method takes jobs in batches (jobs, batch). */
  readonly batch?: ResolvedBatchOptions;
}

/** What one processor class runs: handlers by job name, the fallback, per-name caps and event listeners. */
export interface ProcessorHandlers {
  readonly byName: ReadonlyMap<string, HandlerEntry>;
  readonly fallback?: HandlerEntry;
  readonly caps: Readonly<Record<string, number>>;
  readonly events: readonly { readonly event: ProcessorEvent; readonly method: string }[];
}

function methodMetadata<T>(prototype: object, method: string, key: string): T | undefined {
  const fn = (prototype as Record<string, unknown>)[method];
  return typeof fn === 'function' ? (Reflect.getMetadata(key, fn) as T | undefined) : undefined;
}

/** The methods of the class that carry @OnJob or @OnWorkerEvent. */
export function handlerMethods(prototype: object, methods: readonly string[]): string[] {
  return methods.filter((m) => methodMetadata(prototype, m, ON_JOB_METADATA) !== undefined || methodMetadata(prototype, m, ON_WORKER_EVENT_METADATA) !== undefined);
}

/** Reads the @OnJob / @OnWorkerEvent methods of a processor class; refuses ambiguous setups. */
export function collectHandlers(className: string, prototype: object, methods: readonly string[]): ProcessorHandlers {
  const byName = new Map<string, HandlerEntry>();
  let fallback: HandlerEntry | undefined;
  const caps: Record<string, number> = {};
  const events: { event: ProcessorEvent; method: string }[] = [];
  for (const method of methods) {
    const onJob = methodMetadata<OnJobMetadata>(prototype, method, ON_JOB_METADATA);
    if (onJob) {
      const at = `${className}.${method}`;
      const entry: HandlerEntry = { method, dto: onJob.dto, ...(onJob.batch !== undefined && { batch: batchOf(onJob, at) }) };
      if (onJob.dto !== undefined && typeof onJob.dto !== 'function') throw new SpoolBootstrapError(`@OnJob options.dto of ${at}`, 'must be a DTO class');
      if (onJob.name === undefined) {
        if (fallback) throw new SpoolBootstrapError(at, `is a second fallback @OnJob() in ${className} (the first is ${className}.${fallback.method})`, 'keep one method without a job name');
        if (onJob.concurrency !== undefined) {
          throw new SpoolBootstrapError(`@OnJob() options.concurrency of ${at}`, 'caps a job name, and the fallback has none', 'give the capped names their own @OnJob(name, { concurrency })');
        }
        fallback = entry;
      } else {
        if (typeof onJob.name !== 'string' || onJob.name.length === 0) throw new SpoolBootstrapError(`@OnJob name of ${at}`, 'must be a non-empty string');
        const other = byName.get(onJob.name);
        if (other) {
          throw new SpoolBootstrapError(at, `is a second handler for job name "${onJob.name}" (the first is ${className}.${other.method})`, 'one method per job name');
        }
        byName.set(onJob.name, entry);
        if (onJob.concurrency !== undefined) {
          if (!Number.isInteger(onJob.concurrency) || onJob.concurrency < 1) {
            throw new SpoolBootstrapError(`@OnJob('${onJob.name}') options.concurrency of ${at}`, `must be a positive integer, got ${describe(onJob.concurrency)}`);
          }
          caps[onJob.name] = onJob.concurrency;
        }
      }
    }
    const event = methodMetadata<ProcessorEvent>(prototype, method, ON_WORKER_EVENT_METADATA);
    if (event !== undefined) events.push({ event, method });
  }
  return { byName, fallback, caps, events };
}

function batchOf(onJob: OnJobMetadata, at: string): ResolvedBatchOptions {
  const field = `@OnJob(${onJob.name === undefined ? '' : `'${onJob.name}'`}) options.batch of ${at}`;
  try {
    return resolveBatchOptions(onJob.batch, field);
  } catch (err) {
    // The message names the field (with a did-you-mean for an unknown key); the bootstrap error names the method.
    if (err instanceof InvalidArgumentError) throw new SpoolBootstrapError(at, `has an invalid batch: ${err.message}`);
    throw err;
  }
}
