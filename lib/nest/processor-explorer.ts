import type { InjectionToken } from '@nestjs/common';
import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import type { ProcessorMetadata } from './decorators.js';
import { SpoolBootstrapError } from './errors.js';
import { collectHandlers, handlerMethods, type ProcessorHandlers } from './processor-handlers.js';
import { PROCESSOR_METADATA } from './tokens.js';

/** One `@Processor` provider as found: plain data the host turns into a worker. */
export interface ProcessorDefinition {
  readonly className: string;
  /** The provider's token: how the host gets (or, per job, resolves) its instance. */
  readonly token: InjectionToken;
  readonly metadata: ProcessorMetadata;
  readonly handlers: ProcessorHandlers;
  /** 'static': one instance for the app; 'per-job': request-scoped or transient, a fresh instance per job. */
  readonly scope: 'static' | 'per-job';
}

type Class = abstract new (...args: never[]) => unknown;

/**
 * Finds the `@Processor` providers of the app (DiscoveryService +
 * MetadataScanner) and reads their handlers. It writes nothing and builds
 * nothing: what it returns is data, checked for what the classes alone can
 * show (no `@OnJob`, handlers without `@Processor`); several classes of one
 * queue are grouped into one pool later (processor-pools.ts). Processors given by useFactory or useValue are found through
 * their instance's constructor.
 */
export class ProcessorExplorer {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /** The queues `@Processor` classes name, with their connections (unchecked: explore() reports what is wrong with them). */
  processorQueues(): { queue: string; connection: string }[] {
    const found: { queue: string; connection: string }[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const type = classOf(wrapper);
      const metadata = type && (Reflect.getMetadata(PROCESSOR_METADATA, type) as ProcessorMetadata | undefined);
      if (metadata) found.push({ queue: metadata.queue, connection: metadata.connection });
    }
    return found;
  }

  explore(): ProcessorDefinition[] {
    const found: ProcessorDefinition[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const type = classOf(wrapper);
      if (!type) continue;
      const prototype = type.prototype as object;
      const metadata = Reflect.getMetadata(PROCESSOR_METADATA, type) as ProcessorMetadata | undefined;
      const methods = this.scanner.getAllMethodNames(prototype);
      if (!metadata) {
        const decorated = handlerMethods(prototype, methods).map((m) => `${type.name}.${m}`);
        if (decorated.length > 0) {
          throw new SpoolBootstrapError(decorated.join(', '), `${decorated.length === 1 ? 'has' : 'have'} @OnJob or @OnWorkerEvent but ${type.name} has no @Processor decorator`, `add @Processor('queue-name') to the class`);
        }
        continue;
      }
      const at = `@Processor('${metadata.queue}') on ${type.name}`;
      const handlers = collectHandlers(type.name, prototype, methods);
      // NOTE: a sandboxed processor's handlers are in its module (lib/nest/processor-modes.ts); the class may hold only events.
      if (handlers.byName.size === 0 && !handlers.fallback && metadata.options.sandbox === undefined) {
        // NOTE: a BullMQ WorkerHost subclass brings process(job); here it is one more method until marked.
        const fix = methods.includes('process') ? "mark process() with @OnJob() to run every job name there (Spool's WorkerHost gives this.worker, it calls no process())" : "add @OnJob('job-name') or a fallback @OnJob()";
        throw new SpoolBootstrapError(at, 'has no @OnJob method', fix);
      }
      const perJob = !wrapper.isDependencyTreeStatic() || wrapper.isTransient;
      found.push({ className: type.name, token: wrapper.token as InjectionToken, metadata, handlers, scope: perJob ? 'per-job' : 'static' });
    }
    return found;
  }
}

/**
 * The processor class of a provider: its metatype for a class provider; for
 * useFactory and useValue providers (metatype is the factory, or none), the
 * constructor of the instance they produced.
 */
function classOf(wrapper: InstanceWrapper): Class | undefined {
  const { metatype } = wrapper;
  if (typeof metatype === 'function' && !wrapper.inject && metatype.prototype) return metatype as Class;
  const instance: unknown = wrapper.instance;
  if (typeof instance !== 'object' || instance === null) return undefined;
  const ctor = (instance as { constructor?: unknown }).constructor;
  return typeof ctor === 'function' && ctor !== Object ? (ctor as Class) : undefined;
}
