// The Nest module's public API (re-exported by lib/index.ts).
export { QueueModule } from './queue.module.js';
export { MODULE_OPTIONS_TOKEN as QUEUE_MODULE_OPTIONS } from './module-definition.js';
export type { QueueModuleExtras, SpoolOptionsFactory } from './module-definition.js';
export type { QueueModuleOptions, SpoolConnectionOptions, SpoolConnectionSettings, SpoolNotifyOptions, ProcessorWorkerOptions } from './module-options.js';
export type { QueueRegistration, QueueScheduler } from './queue-registry.js';
export { Processor, OnJob, OnWorkerEvent, OnQueueEvent, InjectQueue, InjectQueueEvents, InjectConnection, InjectFlowProducer } from './decorators.js';
export type { ProcessorOptions, ProcessorSandboxOptions, OnJobOptions, OnJobSchedule, ProcessorEvent, QueueEventListenerName } from './decorators.js';
export { SpoolQueueEvents } from './queue-events-host.js';
export { SpoolWorkers } from './processor-host.js';
export { ModuleFlowProducer } from './module-flow-producer.js';
export { DEFAULT_CONNECTION, getQueueToken, getQueueEventsToken, getConnectionToken, getFlowProducerToken } from './tokens.js';
export { SpoolBootstrapError, QueueValidationError } from './errors.js';
export { SpoolExceptionFilter, spoolHttpError, DEFAULT_RETRY_AFTER_SECONDS } from './exception-filter.js';
export type { SpoolHttpError } from './exception-filter.js';
export type { DtoClass } from './dto.js';
export { SpoolHealth } from './health.js';
export type { SpoolHealthReport, SpoolConnectionHealth } from './health.js';
