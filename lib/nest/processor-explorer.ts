import type { BeforeApplicationShutdown, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { ContextIdFactory, type DiscoveryService, type MetadataScanner, type ModuleRef } from '@nestjs/core';
import type { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper.js';
import { InvalidArgumentError, JobValidationError, NoHandlerError } from '../engine/errors.js';
import type { ActiveJob } from '../engine/job.js';
import { Worker, type Handler } from '../engine/worker.js';
import type { SpoolLogger } from '../logger.js';
import type { SpoolConnections } from './connections.js';
import type { ProcessorMetadata } from './decorators.js';
import { checkDto } from './dto.js';
import { SpoolBootstrapError } from './errors.js';
import { collectHandlers, handlerMethods, type HandlerEntry, type ProcessorHandlers } from './processor-handlers.js';
import type { QueueRegistry } from './queue-registry.js';
import { DEFAULT_CONNECTION, PROCESSOR_METADATA } from './tokens.js';

type Instance = Record<string, unknown>;

/** A processor found at module init, turned into a worker at application bootstrap. */
interface Plan {
  readonly className: string;
  readonly metadata: ProcessorMetadata;
  readonly handlers: ProcessorHandlers;
  /** The singleton, or a fresh instance per job for request-scoped and transient processors. */
  readonly instanceFor: (job: ActiveJob | undefined) => Promise<Instance>;
}

/**
 * Finds @Processor providers (DiscoveryService + MetadataScanner), checks
 * them at module init, starts one Worker per processor at application
 * bootstrap and closes them all before the application shuts down (while
 * queues and connections still work). Inject it to reach the workers, e.g.
 * to run() those declared with autorun: false.
 */
export class SpoolWorkers implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private plans: Plan[] = [];
  private readonly workers = new Map<string, Worker>();

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly registry: QueueRegistry,
    private readonly connections: SpoolConnections,
    private readonly moduleRef: ModuleRef,
    private readonly logger: SpoolLogger,
  ) {}

  /** The worker of a queue's processor; undefined when the queue has no processor in this app. */
  get(queue: string, connection = DEFAULT_CONNECTION): Worker | undefined {
    return this.workers.get(`${connection}\n${queue}`);
  }

  all(): Worker[] {
    return [...this.workers.values()];
  }

  async onModuleInit(): Promise<void> {
    try {
      this.plans = this.discover();
      // Workers are built now (not started) so bad worker options fail here, with the cleanup below.
      for (const plan of this.plans) this.workers.set(`${plan.metadata.connection}\n${plan.metadata.queue}`, this.createWorker(plan));
    } catch (err) {
      // The app will not start: close the connections so the process can exit with the error.
      await this.connections.onApplicationShutdown();
      throw err;
    }
  }

  private discover(): Plan[] {
    const plans: Plan[] = [];
    const seen = new Map<string, string>();
    for (const wrapper of this.discovery.getProviders()) {
      const metatype = wrapper.metatype;
      if (typeof metatype !== 'function' || wrapper.inject || !metatype.prototype) continue;
      const prototype = metatype.prototype as object;
      const metadata = Reflect.getMetadata(PROCESSOR_METADATA, metatype) as ProcessorMetadata | undefined;
      const methods = this.scanner.getAllMethodNames(prototype);
      if (!metadata) {
        const decorated = handlerMethods(prototype, methods).map((m) => `${metatype.name}.${m}`);
        if (decorated.length > 0) {
          throw new SpoolBootstrapError(decorated.join(', '), `${decorated.length === 1 ? 'has' : 'have'} @OnJob or @OnWorkerEvent but ${metatype.name} has no @Processor decorator`, `add @Processor('queue-name') to the class`);
        }
        continue;
      }
      plans.push(this.plan(wrapper, metatype as new () => unknown, metadata, methods, seen));
    }
    return plans;
  }

  async onApplicationBootstrap(): Promise<void> {
    const autorun = this.plans.filter((p) => this.workerOptions(p).autorun !== false);
    await Promise.all(autorun.map((p) => this.get(p.metadata.queue, p.metadata.connection)!.run()));
  }

  /** Workers stop claiming and finish (or hand back) their jobs; queues stay usable meanwhile. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.all().map((w) => w.close()));
  }

  private plan(wrapper: InstanceWrapper, metatype: new () => unknown, metadata: ProcessorMetadata, methods: string[], seen: Map<string, string>): Plan {
    const className = metatype.name;
    const { queue, connection } = metadata;
    const at = `@Processor('${queue}') on ${className}`;
    if (!this.connections.names.includes(connection)) {
      throw new SpoolBootstrapError(at, `names connection "${connection}", which does not exist`,
        `add it to QueueModule.forRoot({ connections: { ${connection}: { url } } }) or use a configured one (configured: ${this.connections.names.join(', ')})`);
    }
    if (!this.registry.has(queue, connection)) {
      const known = this.registry.names(connection);
      throw new SpoolBootstrapError(at, `names queue "${queue}", which is not registered on connection "${connection}"`,
        `import QueueModule.registerQueue(${connection === DEFAULT_CONNECTION ? `'${queue}'` : `{ name: '${queue}', connection: '${connection}' }`}) in a module (registered: ${known.join(', ') || 'none'})`);
    }
    const key = `${connection}\n${queue}`;
    const other = seen.get(key);
    if (other) throw new SpoolBootstrapError(at, `is a second processor for queue "${queue}" (the first is ${other})`, 'put every handler of a queue in one class');
    seen.set(key, className);
    const handlers = collectHandlers(className, metatype.prototype as object, methods);
    if (handlers.byName.size === 0 && !handlers.fallback) throw new SpoolBootstrapError(at, 'has no @OnJob method', "add @OnJob('job-name') or a fallback @OnJob()");
    for (const [jobName, entry] of handlers.byName) {
      if (entry.dto) this.registry.addDto(queue, connection, jobName, entry.dto, `${className}.${entry.method}`);
    }
    const fresh = !wrapper.isDependencyTreeStatic() || wrapper.isTransient;
    const instanceFor = fresh
      ? async (job: ActiveJob | undefined): Promise<Instance> => {
          const contextId = ContextIdFactory.create();
          this.moduleRef.registerRequestByContextId(job, contextId);
          return (await this.moduleRef.resolve(metatype, contextId, { strict: false })) as Instance;
        }
      : async (): Promise<Instance> => wrapper.instance as Instance;
    return { className, metadata, handlers, instanceFor };
  }

  private workerOptions(plan: Plan) {
    return { ...this.connections.options.workers, ...plan.metadata.options };
  }

  private createWorker(plan: Plan): Worker {
    const { queue, connection } = plan.metadata;
    const options = this.workerOptions(plan);
    const caps = Object.keys(plan.handlers.caps).length > 0 ? { nameConcurrency: plan.handlers.caps } : {};
    let worker: Worker;
    try {
      worker = new Worker(queue, this.handler(plan), { ...options, ...caps, store: this.connections.get(connection), logger: this.logger, autorun: false });
    } catch (err) {
      if (err instanceof InvalidArgumentError) throw new SpoolBootstrapError(`@Processor('${queue}') options of ${plan.className}`, `are invalid: ${err.message}`);
      throw err;
    }
    for (const { event, method } of plan.handlers.events) {
      worker.on(event, (...args: unknown[]) => {
        plan
          .instanceFor(undefined)
          .then((instance) => (instance[method] as (...a: unknown[]) => unknown).apply(instance, args))
          .catch((err: unknown) => this.logger.error(`${plan.className}.${method} (@OnWorkerEvent('${event}')) threw`, err));
      });
    }
    return worker;
  }

  private handler(plan: Plan): Handler {
    const { queue, connection } = plan.metadata;
    return async (job) => {
      const entry: HandlerEntry | undefined = plan.handlers.byName.get(job.name) ?? plan.handlers.fallback;
      if (!entry) throw new NoHandlerError(job.name, queue);
      const dto = entry.dto ?? this.registry.dtoFor(queue, connection, job.name);
      let payload: unknown = job.data;
      if (dto) {
        const check = await checkDto(dto, job.data);
        if (!check.ok) throw new JobValidationError(`payload of job ${job.id} ("${job.name}") is invalid: ${check.constraints.join('; ')}`, check.constraints);
        payload = check.value;
      }
      const instance = await plan.instanceFor(job);
      return (instance[entry.method] as (job: ActiveJob, payload: unknown) => unknown).call(instance, job, payload);
    };
  }
}
