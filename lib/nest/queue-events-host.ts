import type { BeforeApplicationShutdown, OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { QueueEvents } from '../engine/queue-events.js';
import type { SpoolLogger } from '../logger.js';
import type { SpoolConnections } from './connections.js';
import { SpoolBootstrapError } from './errors.js';
import type { QueueRegistry } from './queue-registry.js';
import { DEFAULT_CONNECTION, ON_QUEUE_EVENT_METADATA } from './tokens.js';

/** One `@OnQueueEvent` on a method. */
export interface OnQueueEventMetadata {
  readonly queue: string;
  readonly event: string;
  readonly connection: string;
}

/** A listener found at module init: plain data, attached at application bootstrap. */
interface Listener extends OnQueueEventMetadata {
  readonly at: string;
  readonly call: (payload: unknown) => unknown;
}

type Instance = Record<string, unknown>;

/**
 * QueueEvents for Nest: one reader per queue and connection, shared by the
 * `@OnQueueEvent` methods of any provider (found like processors) and by
 * whoever injects it with `@InjectQueueEvents(queue)`. Readers are lazy (Nest
 * builds every queue's provider, injected or not): a reader opens its
 * connection when a listener is attached or it is asked to run, so queues
 * nobody listens to cost no blocking connection. Readers are closed before
 * the application shuts down.
 */
export class SpoolQueueEvents implements OnModuleInit, OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly readers = new Map<string, QueueEvents>();
  private listeners: Listener[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly registry: QueueRegistry,
    private readonly connections: SpoolConnections,
    private readonly logger: SpoolLogger,
  ) {}

  /** The reader of a queue's events (created on first use; it reads new events from its first listener on). */
  get(queue: string, connection: string = DEFAULT_CONNECTION): QueueEvents {
    const key = `${connection}\n${queue}`;
    let reader = this.readers.get(key);
    if (!reader) {
      reader = new QueueEvents(queue, { store: this.connections.get(this.registry.storeOf(queue, connection) ?? connection), shards: this.registry.queue(queue, connection)?.shards, autorun: false });
      reader.on('error', (err) => this.logger.warn(`QueueEvents "${queue}": ${err.message}; retrying`));
      this.readers.set(key, reader);
    }
    return reader;
  }

  async onModuleInit(): Promise<void> {
    try {
      this.listeners = this.discover();
    } catch (err) {
      // The app will not start: close the connections so the process can exit with the error.
      await this.connections.onApplicationShutdown();
      throw err;
    }
  }

  private discover(): Listener[] {
    const found: Listener[] = [];
    for (const wrapper of this.discovery.getProviders()) {
      const metatype = wrapper.metatype;
      if (typeof metatype !== 'function' || !metatype.prototype || !wrapper.isDependencyTreeStatic()) continue;
      const prototype = metatype.prototype as Record<string, unknown>;
      for (const method of this.scanner.getAllMethodNames(prototype)) {
        const marks = Reflect.getMetadata(ON_QUEUE_EVENT_METADATA, prototype[method] as object) as OnQueueEventMetadata[] | undefined;
        for (const mark of marks ?? []) {
          const at = `@OnQueueEvent('${mark.queue}', '${mark.event}') on ${metatype.name}.${method}`;
          if (!this.registry.has(mark.queue, mark.connection)) {
            throw new SpoolBootstrapError(at, `names queue "${mark.queue}", which is not registered on connection "${mark.connection}"`, `import QueueModule.registerQueue('${mark.queue}') in a module`);
          }
          found.push({
            ...mark,
            at,
            call: (payload) => {
              const instance = wrapper.instance as Instance;
              return (instance[method] as (p: unknown) => unknown).call(instance, payload);
            },
          });
        }
      }
    }
    return found;
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const listener of this.listeners) {
      const reader = this.get(listener.queue, listener.connection);
      reader.on(listener.event as 'event', (payload: unknown) => {
        Promise.resolve()
          .then(() => listener.call(payload))
          .catch((err: unknown) => this.logger.error(`${listener.at} threw`, err));
      });
    }
    // Only the readers with @OnQueueEvent listeners have started; wait until they read from now on.
    const listened = new Set(this.listeners.map((l) => this.get(l.queue, l.connection)));
    await Promise.all([...listened].map((r) => r.ready()));
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all([...this.readers.values()].map((r) => r.close()));
    this.readers.clear();
  }
}
