import type { BeforeApplicationShutdown, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import { ContextIdFactory, type ModuleRef } from '@nestjs/core';
import { InvalidArgumentError, JobValidationError, NoHandlerError } from '../engine/errors.js';
import type { ActiveJob } from '../engine/active-job.js';
import { Worker, type Handler } from '../engine/worker.js';
import type { SpoolLogger } from '../logger.js';
import type { SpoolConnections } from './connections.js';
import { checkDto, loadDtoPeers } from './dto.js';
import { SpoolBootstrapError } from './errors.js';
import type { ProcessorDefinition, ProcessorExplorer } from './processor-explorer.js';
import type { HandlerEntry } from './processor-handlers.js';
import { misplacedModes, processorConcurrency, processorModes, type ProcessorModes } from './processor-modes.js';
import { processorPools, type ProcessorPool } from './processor-pools.js';
import { queueKey, type QueueRegistry } from './queue-registry.js';
import { attachWorker } from './worker-host.js';
import { DEFAULT_CONNECTION } from './tokens.js';

type Instance = Record<string, unknown>;

/**
 * Hosts one Worker per queue with `@Processor` classes (several classes of
 * one queue share it: processor-pools.ts): at module init it takes the
 * explorer's definitions, checks them against the app (connections,
 * registered queues), registers their DTOs and builds the workers; it starts them at application
 * bootstrap and closes them all before the application shuts down (while
 * queues and connections still work). Inject it to reach the workers, e.g.
 * to run() those declared with autorun: false.
 */
export class SpoolWorkers implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private definitions: ProcessorDefinition[] = [];
  private pools: ProcessorPool[] = [];
  private readonly workers = new Map<string, Worker>();
  /** Instances of static processors, looked up once. */
  private readonly instances = new Map<ProcessorDefinition, Instance>();

  constructor(
    private readonly explorer: ProcessorExplorer,
    private readonly registry: QueueRegistry,
    private readonly connections: SpoolConnections,
    private readonly moduleRef: ModuleRef,
    private readonly logger: SpoolLogger,
  ) {}

  /**
   * The worker of a processor class, or of a queue's processor; undefined
   * when there is none in this app. Pause, resume and listen to it.
   *
   * @example
   * constructor(private readonly workers: SpoolWorkers) {}
   * await this.workers.get(ImageProcessor)?.pause();
   */
  get(processor: string | (abstract new (...args: never[]) => unknown), connection = DEFAULT_CONNECTION): Worker | undefined {
    if (typeof processor === 'string') return this.workers.get(queueKey(processor, connection));
    // A class provider's token is its class; a useFactory/useValue processor is known by its class name.
    const d = this.definitions.find((def) => def.token === processor) ?? this.definitions.find((def) => def.className === processor.name);
    return d && this.workers.get(queueKey(d.metadata.queue, d.metadata.connection));
  }

  all(): Worker[] {
    return [...this.workers.values()];
  }

  async onModuleInit(): Promise<void> {
    try {
      this.definitions = this.explorer.explore();
      for (const definition of this.definitions) this.admit(definition);
      const withDto = this.definitions.flatMap((d) => [...d.handlers.byName.values(), d.handlers.fallback].filter((e) => e?.dto).map((e) => `${d.className}.${e!.method}`));
      if (withDto.length > 0) await loadDtoPeers(withDto[0]!);
      this.pools = processorPools(this.definitions);
      // Workers are built now (not started) so bad worker options fail here, with the cleanup below.
      for (const pool of this.pools) this.workers.set(queueKey(pool.metadata.queue, pool.metadata.connection), this.createWorker(pool));
      // WorkerHost subclasses get `this.worker` (per-job instances get it as they are resolved).
      for (const d of this.definitions.filter((def) => def.scope === 'static')) attachWorker(await this.instanceFor(d, undefined), this.get(d.metadata.queue, d.metadata.connection)!);
    } catch (err) {
      // The app will not start: close the connections so the process can exit with the error.
      await this.connections.onApplicationShutdown();
      throw err;
    }
  }

  async onApplicationBootstrap(): Promise<void> {
    const autorun = this.pools.filter((d) => this.workerOptions(d).autorun !== false);
    await Promise.all(autorun.map((d) => this.get(d.metadata.queue, d.metadata.connection)!.run()));
  }

  /** Workers stop claiming and finish (or hand back) their jobs; queues stay usable meanwhile. */
  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.all().map((w) => w.close()));
  }

  /** Checks the processor's connection and queue exist in this app, and registers its DTOs for producers. */
  private admit({ className, metadata, handlers }: ProcessorDefinition): void {
    const { queue, connection } = metadata;
    const at = `@Processor('${queue}') on ${className}`;
    // A registered queue proves its connection (an inline one, in an app without forRoot, included).
    if (!this.registry.has(queue, connection) && !this.connections.names.includes(connection)) {
      throw new SpoolBootstrapError(at, `names connection "${connection}", which does not exist`,
        `add it to QueueModule.forRoot({ connections: { ${connection}: { url } } }) or use a configured one (configured: ${this.connections.names.join(', ') || 'none'})`);
    }
    if (!this.registry.has(queue, connection)) {
      const known = this.registry.names(connection);
      throw new SpoolBootstrapError(at, `names queue "${queue}", which is not registered on connection "${connection}"`,
        `import QueueModule.registerQueue(${connection === DEFAULT_CONNECTION ? `'${queue}'` : `{ name: '${queue}', connection: '${connection}' }`}) in a module (registered: ${known.join(', ') || 'none'})`);
    }
    for (const [jobName, entry] of handlers.byName) {
      if (entry.dto) this.registry.addDto(queue, connection, jobName, entry.dto, `${className}.${entry.method}`);
    }
  }

  /** The app's instance, or a fresh one per job (request-scoped and transient processors; `job` is the request). */
  private async instanceFor(d: ProcessorDefinition, job: ActiveJob | undefined): Promise<Instance> {
    if (d.scope === 'static') {
      let instance = this.instances.get(d);
      if (!instance) this.instances.set(d, (instance = this.moduleRef.get<unknown, Instance>(d.token, { strict: false })));
      return instance;
    }
    const contextId = ContextIdFactory.create();
    this.moduleRef.registerRequestByContextId(job, contextId);
    const instance = await this.moduleRef.resolve<unknown, Instance>(d.token, contextId, { strict: false });
    const worker = this.get(d.metadata.queue, d.metadata.connection);
    if (worker) attachWorker(instance, worker);
    return instance;
  }

  /** Module defaults, then the processor's own; the sandbox is not a Worker option here (processor-modes.ts runs it). */
  private workerOptions(d: ProcessorPool) {
    const { tracing, workers } = this.connections.options;
    const { sandbox: _sandbox, ...own } = d.metadata.options;
    const options = { ...(tracing !== undefined && { tracing }), ...workers, ...own };
    misplacedModes(d, workers);
    const concurrency = processorConcurrency(d, options.concurrency);
    return { ...options, ...(concurrency !== undefined && { concurrency }) };
  }

  private createWorker(d: ProcessorPool): Worker {
    const { queue, connection } = d.metadata;
    const caps = Object.keys(d.handlers.caps).length > 0 ? { nameConcurrency: d.handlers.caps } : {};
    const options = this.workerOptions(d);
    const report = (err: unknown, context: string): void => this.logger.error(`@Processor('${queue}') of ${d.className}: ${context}`, err);
    const modes = processorModes(d, options.concurrency ?? 1, (entry, job) => this.instanceFor(d.memberOf(entry), job), report);
    let worker: Worker;
    try {
      worker = new Worker(queue, this.handler(d, modes), { ...options, ...caps, shards: this.registry.queue(queue, connection)?.shards, store: this.connections.get(this.registry.storeOf(queue, connection)), logger: this.logger, autorun: false });
    } catch (err) {
      void modes.close();
      if (err instanceof InvalidArgumentError) throw new SpoolBootstrapError(`@Processor('${queue}') options of ${d.className}`, `are invalid: ${err.message}`);
      throw err;
    }
    worker.once('closed', () => void modes.close().catch((err: unknown) => report(err, 'stopping its sandboxes failed')));
    for (const member of d.members) {
      for (const { event, method } of member.handlers.events) {
        worker.on(event, (...args: unknown[]) => {
          this.instanceFor(member, undefined)
            .then((instance) => (instance[method] as (...a: unknown[]) => unknown).apply(instance, args))
            .catch((err: unknown) => this.logger.error(`${member.className}.${method} (@OnWorkerEvent('${event}')) threw`, err));
        });
      }
    }
    return worker;
  }

  /** Per job: the DTO check, then the sandbox, the name's batch, or its method. */
  private handler(d: ProcessorPool, modes: ProcessorModes): Handler {
    const { queue, connection } = d.metadata;
    return async (job) => {
      const entry: HandlerEntry | undefined = d.handlers.byName.get(job.name) ?? d.handlers.fallback;
      if (!entry && !modes.sandbox) throw new NoHandlerError(job.name, queue);
      const dto = entry?.dto ?? this.registry.dtoFor(queue, connection, job.name);
      let payload: unknown = job.data;
      if (dto) {
        const check = await checkDto(dto, job.data);
        if (!check.ok) throw new JobValidationError(`payload of job ${job.id} ("${job.name}") is invalid: ${check.constraints.join('; ')}`, check.constraints);
        payload = check.value;
      }
      if (modes.sandbox) return modes.sandbox.run(job);
      const batch = modes.batches.get(entry!);
      if (batch) return batch.run(job);
      const instance = await this.instanceFor(d.memberOf(entry!), job);
      return (instance[entry!.method] as (job: ActiveJob, payload: unknown) => unknown).call(instance, job, payload);
    };
  }
}
