import type { OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { InvalidArgumentError } from '../engine/errors.js';
import type { JobOptions } from '../engine/options.js';
import type { SchedulerJob, SchedulerRepeat } from '../engine/scheduler-spec.js';
import { queueLimits } from '../engine/limits.js';
import { Queue } from '../engine/queue.js';
import type { QueueLimits } from '../store/store.js';
import type { SpoolConnections } from './connections.js';
import type { ConnectionRef } from './connection-ref.js';
import type { ModuleFlowProducer } from './module-flow-producer.js';
import type { SpoolConnectionOptions } from './module-options.js';
import { checkDto, loadDtoPeers, type DtoClass } from './dto.js';
import { QueueValidationError, SpoolBootstrapError } from './errors.js';
import { DEFAULT_CONNECTION, queueKey } from './tokens.js';
import { describe } from '../common/validation.js';

/** What registerQueue() accepts per queue (or just its name). */
export interface QueueRegistration {
  readonly name: string;
  /**
   * Named connection of QueueModule.forRoot({ connections }), or a connection
   * of the queue's own ({ url } ...: no forRoot needed; the queue is then
   * injected by name alone, `@InjectQueue(name)`). Default: the default connection.
   */
  readonly connection?: string | SpoolConnectionOptions;
  /** Key prefix of this queue, over its connection's (the queue's keys live under it; so do its workers' and events'). */
  readonly prefix?: string;
  /** Options every job of this queue gets unless it sets its own (over the module's defaultJobOptions). */
  readonly defaultJobOptions?: JobOptions;
  /** DTO per job name: add() validates payloads against it, and so do workers before the handler. */
  readonly jobs?: Readonly<Record<string, DtoClass>>;
  /** Rate limit, group limits and backpressure, stored in Redis at bootstrap (queue.configure). */
  readonly limits?: QueueLimits;
  /** Largest encoded payload in bytes. Default 1 MiB. */
  readonly maxPayloadBytes?: number;
  /** Spreads the queue over this many physical queues (docs/operations/cluster.md#sharded-queues); its workers and events follow. Default 1. */
  readonly shards?: number;
  /** Schedulers upserted at bootstrap (queue.upsertScheduler), with those of `@OnJob({ schedule })`. */
  readonly schedulers?: readonly QueueScheduler[];
  /** Remove, at bootstrap, the queue's schedulers that no registration or `@OnJob` declares. Default false. */
  readonly pruneSchedulers?: boolean;
  /** With OpenTelemetry: producer spans and stored trace context for this queue's adds, over forRoot's `tracing`. */
  readonly tracing?: boolean;
}

/** A scheduler declared with registerQueue(): the arguments of queue.upsertScheduler(id, repeat, job). */
export interface QueueScheduler {
  readonly id: string;
  readonly repeat: SchedulerRepeat;
  readonly job: SchedulerJob;
}

/** Schedulers a registration declared, for SpoolSchedulers. */
export interface DeclaredSchedulers {
  readonly queue: Queue;
  readonly connection: string;
  readonly schedulers: readonly (QueueScheduler & { readonly at: string })[];
  readonly prune: boolean;
}

interface Entry {
  readonly queue: Queue;
  /** The connection it is registered (and injected) under. */
  readonly connection: string;
  /** The connection its store is: the same, an inline connection's, or a prefixed twin (connections.attach). */
  readonly store: string;
  /** What registered it first (for conflict messages). */
  readonly at: string;
  /** The tracing it was made with (a second registration must not say otherwise). */
  readonly tracing: boolean;
  /** DTO per job name, with who declared it (for conflict messages). */
  readonly dtos: Map<string, { readonly dto: DtoClass; readonly from: string }>;
}

/**
 * Every queue the app registered, one Queue instance per connection and name
 * however many modules register it, with the DTO map its producers and
 * workers validate against.
 */
export class QueueRegistry implements OnModuleInit, OnApplicationShutdown {
  private readonly entries = new Map<string, Entry>();
  private readonly declared: DeclaredSchedulers[] = [];
  private readonly producers = new Map<string, { readonly producer: ModuleFlowProducer; readonly store: string; readonly at: string }>();
  /** Limits of queues registered before the connections opened. */
  private readonly pendingLimits: { readonly queue: Queue; readonly limits: QueueLimits; readonly at: string }[] = [];
  private opened = false;

  constructor(private readonly connections: SpoolConnections) {}

  /** Registers a queue; `ref` is its `connection` option as read (connection-ref.ts). */
  async register(registration: QueueRegistration, ref: ConnectionRef, at: string): Promise<Queue> {
    try {
      return await this.create(registration, ref, at);
    } catch (err) {
      return this.connections.abandon(err);
    }
  }

  private async create(registration: QueueRegistration, ref: ConnectionRef, at: string): Promise<Queue> {
    // An inline connection's queue is known by its name alone (BullMQ's getQueueToken(name)): the default connection's slot.
    const connection = ref.inline ? DEFAULT_CONNECTION : ref.name;
    const key = queueKey(registration.name, connection);
    const storeName = this.connections.attach(ref, registration.prefix, key, `${at}.connection`);
    await this.connections.ensureOpen(storeName);
    // Read after the await: registrations of one queue run side by side.
    let entry = this.entries.get(key);
    if (entry && entry.store !== storeName) {
      throw new SpoolBootstrapError(`${at}.connection`, `makes queue "${registration.name}" use connection "${storeName}", but ${entry.at} registers it on "${entry.store}"`, 'register a queue with the same connection and prefix everywhere');
    }
    if (!entry) {
      const store = this.connections.get(storeName);
      const moduleDefaults = this.connections.options.defaultJobOptions;
      const defaults = moduleDefaults || registration.defaultJobOptions ? { ...moduleDefaults, ...registration.defaultJobOptions } : undefined;
      const dtos: Entry['dtos'] = new Map();
      const tracing = registration.tracing ?? this.connections.options.tracing ?? true;
      let queue: Queue;
      try {
        queue = new Queue(registration.name, {
          store,
          defaultJobOptions: defaults,
          maxPayloadBytes: registration.maxPayloadBytes,
          shards: registration.shards,
          tracing,
          validate: (jobName, data) => this.validate(registration.name, dtos, jobName, data),
        });
      } catch (err) {
        throw asBootstrapError(err, at);
      }
      entry = { queue, connection, store: storeName, at, tracing, dtos };
      this.entries.set(key, entry);
    } else if (registration.shards !== undefined && registration.shards !== entry.queue.shards) {
      throw new SpoolBootstrapError(`${at}.shards`, `is ${registration.shards}, but queue "${registration.name}" is registered elsewhere with shards: ${entry.queue.shards}`, 'register it with the same shards everywhere');
    } else if (registration.tracing !== undefined && registration.tracing !== entry.tracing) {
      throw new SpoolBootstrapError(`${at}.tracing`, `is ${registration.tracing}, but queue "${registration.name}" is registered elsewhere with tracing: ${entry.tracing}`, 'register it with the same tracing everywhere');
    }
    const dtos = Object.entries(registration.jobs ?? {});
    for (const [jobName, dto] of dtos) this.addDto(registration.name, connection, jobName, dto, at);
    if (dtos.length > 0) await loadDtoPeers(`${at}.jobs`);
    if (registration.schedulers !== undefined || registration.pruneSchedulers) {
      const list = Array.isArray(registration.schedulers) ? registration.schedulers : [];
      if (registration.schedulers !== undefined && !Array.isArray(registration.schedulers)) throw new SpoolBootstrapError(`${at}.schedulers`, 'must be an array of { id, repeat, job }');
      const schedulers = list.map((s, i) => ({ ...s, at: `${at}.schedulers[${i}]` }));
      this.declared.push({ queue: entry.queue, connection, schedulers, prune: registration.pruneSchedulers === true });
    }
    if (registration.limits !== undefined) {
      let limits: QueueLimits;
      try {
        limits = queueLimits(registration.limits);
      } catch (err) {
        throw asBootstrapError(err, `${at}.limits`);
      }
      // Stored once the connections are open (module init); a queue registered later (a lazy module) stores them now.
      if (this.opened) await configure(entry.queue, limits, `${at}.limits`);
      else this.pendingLimits.push({ queue: entry.queue, limits, at: `${at}.limits` });
    }
    return entry.queue;
  }

  /** The connections open (SpoolConnections.onModuleInit; this waits for it), the registered limits are stored. */
  async onModuleInit(): Promise<void> {
    try {
      await this.connections.connect();
      this.opened = true;
      for (const { queue, limits, at } of this.pendingLimits.splice(0)) await configure(queue, limits, at);
    } catch (err) {
      await this.connections.abandon(err);
    }
  }

  /** Schedulers declared by registerQueue() calls, one entry per registration that declared some. */
  declaredSchedulers(): readonly DeclaredSchedulers[] {
    return this.declared;
  }

  /** The Queue registered as `name` on `connection`, if any. */
  queue(name: string, connection: string): Queue | undefined {
    return this.entries.get(queueKey(name, connection))?.queue;
  }

  has(name: string, connection: string): boolean {
    return this.entries.has(queueKey(name, connection));
  }

  /** Names registered on a connection (for error messages). */
  names(connection: string): string[] {
    return [...this.entries.values()].filter((e) => e.connection === connection).map((e) => e.queue.name);
  }

  /** The queues whose store is that connection's (a flow producer's, connections.attach names it). */
  queues(store: string): Queue[] {
    return [...this.entries.values()].filter((e) => e.store === store).map((e) => e.queue);
  }

  /** The connection (store) a registered queue uses. */
  storeOf(name: string, connection: string): string | undefined {
    return this.entries.get(queueKey(name, connection))?.store;
  }

  /** Declares the DTO of a job name; a second, different DTO for the same name is a bootstrap error. */
  addDto(queue: string, connection: string, jobName: string, dto: DtoClass, from: string): void {
    const entry = this.entries.get(queueKey(queue, connection));
    if (!entry) throw new SpoolBootstrapError(from, `names queue "${queue}", which is not registered`);
    if (typeof dto !== 'function') throw new SpoolBootstrapError(`${from} jobs.${jobName}`, 'must be a DTO class');
    const known = entry.dtos.get(jobName);
    if (known && known.dto !== dto) {
      throw new SpoolBootstrapError(from, `declares ${dto.name} for job "${jobName}" of queue "${queue}", but ${known.from} declares ${known.dto.name}`, 'use one DTO per job name');
    }
    entry.dtos.set(jobName, { dto, from });
  }

  dtoFor(queue: string, connection: string, jobName: string): DtoClass | undefined {
    return this.entries.get(queueKey(queue, connection))?.dtos.get(jobName)?.dto;
  }

  /**
   * The app's flow producer of that name, made on first use: registering the
   * same name in several modules gives one producer; on another connection,
   * a bootstrap error.
   */
  flowProducer(name: string, store: string, at: string, make: () => ModuleFlowProducer): ModuleFlowProducer {
    const known = this.producers.get(name);
    if (known && known.store !== store) {
      throw new SpoolBootstrapError(at, `registers flow producer "${name}" on connection "${store}", but ${known.at} registers it on "${known.store}"`, 'give each flow producer its own name (registerFlowProducer({ name }))');
    }
    if (known) return known.producer;
    const producer = make();
    this.producers.set(name, { producer, store, at });
    return producer;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.producers.values()].map((p) => p.producer.close()));
    await Promise.all([...this.entries.values()].map((e) => e.queue.close()));
  }

  private async validate(queue: string, dtos: Entry['dtos'], jobName: string, data: unknown): Promise<void> {
    const declared = dtos.get(jobName);
    if (!declared) return;
    const check = await checkDto(declared.dto, data);
    if (!check.ok) throw new QueueValidationError(queue, jobName, check.constraints);
  }
}

export { queueKey };

async function configure(queue: Queue, limits: QueueLimits, at: string): Promise<void> {
  try {
    await queue.configure(limits);
  } catch (err) {
    throw asBootstrapError(err, at);
  }
}

function asBootstrapError(err: unknown, at: string): Error {
  if (err instanceof InvalidArgumentError) return new SpoolBootstrapError(at, `is invalid: ${err.message}`);
  return err instanceof Error ? err : new Error(describe(err));
}
