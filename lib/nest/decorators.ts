import { Inject, SetMetadata } from '@nestjs/common';
import type { WorkerEventName } from '../engine/events.js';
import type { SchedulerJobOptions, SchedulerRepeat } from '../engine/scheduler-spec.js';
import type { QueueEventsEmitted } from '../engine/queue-events.js';
import type { OnQueueEventMetadata } from './queue-events-host.js';
import type { DtoClass } from './dto.js';
import type { ProcessorWorkerOptions } from './module-options.js';
import type { BatchOptions } from '../engine/batch.js';
import type { SandboxOptions } from '../engine/sandbox/options.js';
import {
  connectionName,
  DEFAULT_CONNECTION,
  getConnectionToken,
  getFlowProducerToken,
  getQueueEventsToken,
  getQueueToken,
  ON_JOB_METADATA,
  ON_QUEUE_EVENT_METADATA,
  ON_WORKER_EVENT_METADATA,
  PROCESSOR_METADATA,
} from './tokens.js';

/** Options of `@Processor(queue, options)`: the worker options of the processor's pool, and the connection of its queue. */
export interface ProcessorOptions extends ProcessorWorkerOptions {
  /** Named connection of the queue. Default: the default connection. */
  readonly connection?: string;
  /** Run the jobs in a handler module in worker threads or child processes instead of `@OnJob` methods (docs/guide/workers.md#sandboxed-processors). */
  readonly sandbox?: ProcessorSandboxOptions;
}

/** A sandboxed processor's handler module (absolute path or file: URL) and how it runs. */
export interface ProcessorSandboxOptions extends SandboxOptions {
  readonly file: string | URL;
}

export interface ProcessorMetadata {
  readonly queue: string;
  readonly connection: string;
  readonly options: ProcessorWorkerOptions & { readonly sandbox?: ProcessorSandboxOptions };
}

/** Options of `@OnJob(name, options)`: a DTO to validate payloads with, a concurrency cap for the name, a schedule. */
export interface OnJobOptions {
  /** Payloads of this name are turned into this class and validated before the handler runs; invalid ones are dead-lettered. */
  readonly dto?: DtoClass;
  /** At most this many jobs of this name run at once in the processor's pool. */
  readonly concurrency?: number;
  /**
   * The method takes jobs of this name in batches: (jobs, batch) => one result
   * per job (docs/guide/workers.md#batch-handlers). The processor's concurrency is then at
   * least `size` (by default the largest batch size).
   */
  readonly batch?: BatchOptions;
  /** Adds jobs of this name on a schedule (queue.upsertScheduler at bootstrap), e.g. `{ cron: '0 8 * * *', tz: 'Europe/Paris' }`. */
  readonly schedule?: OnJobSchedule;
}

/** A schedule of `@OnJob`: when (cron or every) plus the scheduler id (default: the job name) and the jobs' data and options. */
export interface OnJobSchedule extends SchedulerRepeat {
  readonly id?: string;
  readonly data?: unknown;
  readonly opts?: SchedulerJobOptions;
}

export interface OnJobMetadata extends OnJobOptions {
  /** undefined: the fallback handler, for every name without its own. */
  readonly name?: string;
}

/** Worker events a processor method can receive with `@OnWorkerEvent`. */
export type ProcessorEvent = Exclude<WorkerEventName, 'closed'>;

/**
 * Marks a provider as the processor of a queue: one worker pool per class,
 * started at application bootstrap, running the class's `@OnJob` methods.
 *
 * @example
 * \@Processor('emails', { concurrency: 10 })
 * export class EmailProcessor {
 *   \@OnJob('send', { dto: SendEmailDto }) send(job: ActiveJob, email: SendEmailDto) { ... }
 * }
 */
export function Processor(queue: string, options: ProcessorOptions = {}): ClassDecorator {
  const { connection, ...worker } = options;
  const metadata: ProcessorMetadata = { queue, connection: connectionName(connection, `@Processor('${queue}') options.connection`), options: worker };
  return SetMetadata(PROCESSOR_METADATA, metadata) as ClassDecorator;
}

/**
 * Runs jobs of `name` (or, without a name, of every name that has no handler
 * of its own). The method receives (job, payload): payload is the validated
 * DTO instance when `dto` is set, else job.data. Its return value is the result.
 */
export function OnJob(name?: string, options: OnJobOptions = {}): MethodDecorator {
  const metadata: OnJobMetadata = { name, ...options };
  return SetMetadata(ON_JOB_METADATA, metadata) as MethodDecorator;
}

/** Receives a worker event of the class's processor, with the Worker's event arguments. */
export function OnWorkerEvent(event: ProcessorEvent): MethodDecorator {
  return SetMetadata(ON_WORKER_EVENT_METADATA, event) as MethodDecorator;
}

/** Queue events a provider method can receive with `@OnQueueEvent`: each event by name, 'event' for all, 'gap'. */
export type QueueEventListenerName = Exclude<keyof QueueEventsEmitted, 'error' | 'closed'>;

/**
 * Receives an event of a queue's event stream (QueueEvents), on a method of
 * any provider: every process running the app gets every event. Stack it to
 * listen to several.
 *
 * @example
 * \@OnQueueEvent('emails', 'failed') onFailed(e: QueueEvent<'failed'>) { if (e.next === 'dead') alert(e.jobId); }
 */
export function OnQueueEvent(queue: string, event: QueueEventListenerName, options: { readonly connection?: string } = {}): MethodDecorator {
  const mark: OnQueueEventMetadata = { queue, event, connection: connectionName(options.connection, `@OnQueueEvent('${queue}', '${event}') options.connection`) };
  return (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const marks = (Reflect.getMetadata(ON_QUEUE_EVENT_METADATA, method) as OnQueueEventMetadata[] | undefined) ?? [];
    Reflect.defineMetadata(ON_QUEUE_EVENT_METADATA, [...marks, mark], method);
    return descriptor;
  };
}

/** Injects the QueueEvents of a queue registered with QueueModule.registerQueue(name). */
export function InjectQueueEvents(name: string, connection: string = DEFAULT_CONNECTION): ParameterDecorator & PropertyDecorator {
  return Inject(getQueueEventsToken(name, connectionName(connection, `@InjectQueueEvents('${name}') connection`)));
}

/** Injects the Queue registered with QueueModule.registerQueue(name). */
export function InjectQueue(name: string, connection: string = DEFAULT_CONNECTION): ParameterDecorator & PropertyDecorator {
  return Inject(getQueueToken(name, connectionName(connection, `@InjectQueue('${name}') connection`)));
}

/** Injects the Store of a connection (a RedisStore; a MemoryStore under QueueTesting). */
export function InjectConnection(connection: string = DEFAULT_CONNECTION): ParameterDecorator & PropertyDecorator {
  return Inject(getConnectionToken(connectionName(connection, '@InjectConnection() connection')));
}

/**
 * Injects the FlowProducer QueueModule.registerFlowProducer({ name })
 * registered; without a name, the default connection's (a producer without
 * a name is named after its connection).
 */
export function InjectFlowProducer(name: string = DEFAULT_CONNECTION): ParameterDecorator & PropertyDecorator {
  return Inject(getFlowProducerToken(name));
}
