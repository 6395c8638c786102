import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import type { SpoolLogger } from '../logger.js';
import { SpoolConnections } from './connections.js';
import { SpoolHealth } from './health.js';
import { SpoolBootstrapError } from './errors.js';
import { knownKeys } from './module-options.js';
import { REGISTER_QUEUE_HINTS } from '../common/option-hints.js';
import { describe } from '../common/validation.js';
import { ModuleFlowProducer } from './module-flow-producer.js';
import { ASYNC_OPTIONS_TYPE, ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE } from './module-definition.js';
import { nestLogger } from './nest-logger.js';
import { ProcessorExplorer } from './processor-explorer.js';
import { SpoolWorkers } from './processor-host.js';
import { SpoolSchedulers } from './scheduler-bootstrap.js';
import { SpoolQueueEvents } from './queue-events-host.js';
import { QueueRegistry, type QueueRegistration } from './queue-registry.js';
import { connectionName, DEFAULT_CONNECTION, getConnectionToken, getFlowProducerToken, getQueueEventsToken, getQueueToken } from './tokens.js';

export const SPOOL_LOGGER = 'SpoolLogger';

function connectionProviders(names: readonly string[]): Provider[] {
  return [...new Set(names)].map((name) => ({
    provide: getConnectionToken(name),
    useFactory: async (connections: SpoolConnections) => {
      try {
        return connections.get(name);
      } catch (err) {
        return connections.abandon(err);
      }
    },
    inject: [SpoolConnections],
  }));
}

/** The root module's providers, added to what ConfigurableModuleBuilder generates; global so feature modules see them. */
function withCore(definition: DynamicModule, connectionNames: readonly string[]): DynamicModule {
  const connections = connectionProviders([DEFAULT_CONNECTION, ...connectionNames]);
  const core: Provider[] = [
    { provide: SPOOL_LOGGER, useFactory: () => nestLogger() },
    {
      provide: SpoolConnections,
      // Built here, opened at module init (SpoolConnections.onModuleInit), when the processors are known.
      useFactory: (options: unknown, logger: SpoolLogger, d: DiscoveryService, s: MetadataScanner) =>
        SpoolConnections.create(options, logger, () => new ProcessorExplorer(d, s).connections()),
      inject: [MODULE_OPTIONS_TOKEN, SPOOL_LOGGER, DiscoveryService, MetadataScanner],
    },
    { provide: QueueRegistry, useFactory: (c: SpoolConnections) => new QueueRegistry(c), inject: [SpoolConnections] },
    { provide: SpoolHealth, useFactory: (c: SpoolConnections) => new SpoolHealth(c), inject: [SpoolConnections] },
    {
      provide: SpoolWorkers,
      useFactory: (d: DiscoveryService, s: MetadataScanner, r: QueueRegistry, c: SpoolConnections, m: ModuleRef, l: SpoolLogger) => new SpoolWorkers(new ProcessorExplorer(d, s), r, c, m, l),
      inject: [DiscoveryService, MetadataScanner, QueueRegistry, SpoolConnections, ModuleRef, SPOOL_LOGGER],
    },
    {
      provide: SpoolSchedulers,
      useFactory: (d: DiscoveryService, s: MetadataScanner, r: QueueRegistry) => new SpoolSchedulers(d, s, r),
      inject: [DiscoveryService, MetadataScanner, QueueRegistry],
    },
    {
      provide: SpoolQueueEvents,
      useFactory: (d: DiscoveryService, s: MetadataScanner, r: QueueRegistry, c: SpoolConnections, l: SpoolLogger) => new SpoolQueueEvents(d, s, r, c, l),
      inject: [DiscoveryService, MetadataScanner, QueueRegistry, SpoolConnections, SPOOL_LOGGER],
    },
    ...connections,
  ];
  return {
    ...definition,
    global: true,
    imports: [...(definition.imports ?? []), DiscoveryModule],
    providers: [...(definition.providers ?? []), ...core],
    exports: [...(definition.exports ?? []), SpoolConnections, QueueRegistry, SpoolWorkers, SpoolQueueEvents, SpoolHealth, SPOOL_LOGGER, ...connections.map((p) => (p as { provide: string }).provide)],
  };
}

const REGISTRATION_KEYS: readonly (keyof QueueRegistration)[] = ['name', 'connection', 'defaultJobOptions', 'jobs', 'limits', 'maxPayloadBytes', 'schedulers', 'pruneSchedulers', 'shards', 'tracing'];

function registration(item: unknown, at: string): QueueRegistration {
  if (typeof item === 'string') return { name: item };
  if (typeof item !== 'object' || item === null || typeof (item as { name?: unknown }).name !== 'string') {
    throw new SpoolBootstrapError(at, `must be a queue name or { name, connection?, defaultJobOptions?, jobs?, limits? }, got ${describe(item)}`);
  }
  knownKeys(item, REGISTRATION_KEYS, at, REGISTER_QUEUE_HINTS);
  checkTracing((item as { tracing?: unknown }).tracing, at);
  const connection = connectionName((item as { connection?: unknown }).connection, `${at}.connection`);
  return { ...(item as QueueRegistration), connection };
}

function checkTracing(tracing: unknown, at: string): void {
  if (tracing !== undefined && typeof tracing !== 'boolean') throw new SpoolBootstrapError(`${at}.tracing`, `must be true or false, got ${JSON.stringify(tracing)}`);
}

/**
 * Spool for Nest.
 *
 * @example
 * \@Module({
 *   imports: [
 *     QueueModule.forRoot({ connection: { url: process.env.REDIS_URL } }),
 *     QueueModule.registerQueue('emails', { name: 'orders', jobs: { place: PlaceOrderDto } }),
 *   ],
 *   providers: [EmailProcessor],
 * })
 * export class AppModule {}
 */
@Module({})
export class QueueModule extends ConfigurableModuleClass {
  /** Connections, workers and the explorer, for the whole app (global). */
  static override forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    const named = typeof options === 'object' && options?.connections ? Object.keys(options.connections) : [];
    return withCore(super.forRoot(options), named);
  }

  /** Options from a factory (useFactory + inject + imports), a class (useClass) or an existing provider (useExisting). */
  static override forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return withCore(super.forRootAsync(options), options.connectionNames ?? []);
  }

  /** Provides a Queue per name (inject with `@InjectQueue(name)`); usable in any feature module. */
  static registerQueue(...queues: (string | QueueRegistration)[]): DynamicModule {
    const registrations = queues.map((q, i) => registration(q, `QueueModule.registerQueue() argument ${i + 1}`));
    const providers: Provider[] = registrations.map((r, i) => ({
      provide: getQueueToken(r.name, r.connection),
      useFactory: (registry: QueueRegistry) => registry.register(r, `QueueModule.registerQueue() argument ${i + 1} ("${r.name}")`),
      inject: [QueueRegistry],
    }));
    // QueueEvents per queue, made on first injection (after the queue, so its registration is checked first).
    const events: Provider[] = registrations.map((r) => ({
      provide: getQueueEventsToken(r.name, r.connection),
      useFactory: (host: SpoolQueueEvents) => host.get(r.name, r.connection),
      inject: [SpoolQueueEvents, getQueueToken(r.name, r.connection)],
    }));
    const connections = connectionProviders(registrations.map((r) => r.connection ?? DEFAULT_CONNECTION));
    return {
      module: QueueModule,
      providers: [...providers, ...events, ...connections],
      exports: [...providers, ...events, ...connections].map((p) => (p as { provide: string }).provide),
    };
  }

  /**
   * Provides a FlowProducer over every registered queue of the connection
   * (inject with `@InjectFlowProducer()`). `tracing`: its producer spans and
   * stored trace context, over forRoot's.
   */
  static registerFlowProducer(options: { readonly connection?: string; readonly tracing?: boolean } = {}): DynamicModule {
    knownKeys(options, ['connection', 'tracing'], 'QueueModule.registerFlowProducer() options');
    checkTracing(options.tracing, 'QueueModule.registerFlowProducer() options');
    const connection = connectionName(options.connection, 'QueueModule.registerFlowProducer() options.connection');
    const provider: Provider = {
      provide: getFlowProducerToken(connection),
      useFactory: (c: SpoolConnections, r: QueueRegistry) => new ModuleFlowProducer(c, r, connection, options.tracing),
      inject: [SpoolConnections, QueueRegistry],
    };
    return { module: QueueModule, providers: [provider], exports: [getFlowProducerToken(connection)] };
  }
}
