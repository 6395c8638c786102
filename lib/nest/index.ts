// The Nest module's public API (re-exported by lib/index.ts).
export { QueueModule } from './queue.module.js';
export { MODULE_OPTIONS_TOKEN as QUEUE_MODULE_OPTIONS } from './module-definition.js';
export type { QueueModuleExtras, SpoolOptionsFactory } from './module-definition.js';
export type { QueueModuleOptions, SpoolConnectionOptions, ProcessorWorkerOptions } from './module-options.js';
export type { QueueRegistration } from './queue-registry.js';
export { Processor, OnJob, OnWorkerEvent, OnQueueEvent, InjectQueue, InjectQueueEvents, InjectConnection, InjectFlowProducer } from './decorators.js';
export type { ProcessorOptions, OnJobOptions, ProcessorEvent, QueueEventListenerName } from './decorators.js';
export { SpoolQueueEvents } from './queue-events-host.js';
export { SpoolWorkers } from './processor-explorer.js';
export { ModuleFlowProducer } from './module-flow-producer.js';
export { DEFAULT_CONNECTION, getQueueToken, getQueueEventsToken, getConnectionToken, getFlowProducerToken } from './tokens.js';
export { SpoolBootstrapError, QueueValidationError } from './errors.js';
export type { DtoClass } from './dto.js';
export { QueueDashboardModule, QUEUE_DASHBOARD_OPTIONS } from '../dashboard/index.js';
export type { QueueDashboardOptions, QueueDashboardExtras } from '../dashboard/index.js';
