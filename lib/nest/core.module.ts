import { Global, Module, type Provider } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, MetadataScanner, ModuleRef } from '@nestjs/core';
import type { SpoolLogger } from '../logger.js';
import { SpoolConnections } from './connections.js';
import { SpoolHealth } from './health.js';
import { MODULE_OPTIONS_TOKEN } from './module-definition.js';
import { nestLogger } from './nest-logger.js';
import { SpoolOutboxRelays } from './outbox-relay-host.js';
import { ProcessorExplorer } from './processor-explorer.js';
import { SpoolWorkers } from './processor-host.js';
import { SpoolQueueEvents } from './queue-events-host.js';
import { QueueRegistry } from './queue-registry.js';
import { SpoolSchedulers } from './scheduler-bootstrap.js';

export const SPOOL_LOGGER = 'SpoolLogger';

/** forRoot's options when the app has a forRoot; a registration with its own connection works without. */
const OPTIONAL_OPTIONS = { token: MODULE_OPTIONS_TOKEN, optional: true };

const CORE: Provider[] = [
  { provide: SPOOL_LOGGER, useFactory: () => nestLogger() },
  {
    provide: SpoolConnections,
    // Built here, opened at module init (SpoolConnections.onModuleInit), when the processors are known.
    useFactory: (options: unknown, logger: SpoolLogger, d: DiscoveryService, s: MetadataScanner) =>
      SpoolConnections.create(options, logger, () => new ProcessorExplorer(d, s).processorQueues()),
    inject: [OPTIONAL_OPTIONS, SPOOL_LOGGER, DiscoveryService, MetadataScanner],
  },
  { provide: QueueRegistry, useFactory: (c: SpoolConnections) => new QueueRegistry(c), inject: [SpoolConnections] },
  { provide: SpoolHealth, useFactory: (c: SpoolConnections) => new SpoolHealth(c), inject: [SpoolConnections] },
  {
    provide: SpoolWorkers,
    useFactory: (d: DiscoveryService, s: MetadataScanner, r: QueueRegistry, c: SpoolConnections, m: ModuleRef, l: SpoolLogger) => new SpoolWorkers(new ProcessorExplorer(d, s), r, c, m, l),
    inject: [DiscoveryService, MetadataScanner, QueueRegistry, SpoolConnections, ModuleRef, SPOOL_LOGGER],
  },
  { provide: SpoolOutboxRelays, useFactory: (c: SpoolConnections, l: SpoolLogger) => new SpoolOutboxRelays(c, l), inject: [SpoolConnections, SPOOL_LOGGER] },
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
];

/**
 * The app's one set of Spool services (connections, registry, workers,
 * schedulers, queue events, health), imported by forRoot and by every
 * registration: a static module, so Nest makes it once however many import
 * it, and an app whose queues all bring their own connection needs no
 * forRoot. Global, so its lifecycle hooks run before the app's modules'.
 */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: CORE,
  exports: [SpoolConnections, QueueRegistry, SpoolWorkers, SpoolQueueEvents, SpoolHealth, SPOOL_LOGGER],
})
export class SpoolCoreModule {}
