// The Nest module's public API (re-exported by lib/index.ts).
export { QueueModule } from './queue.module.js';
export { MODULE_OPTIONS_TOKEN as QUEUE_MODULE_OPTIONS } from './module-definition.js';
export type { QueueModuleExtras, SpoolOptionsFactory } from './module-definition.js';
export type { QueueModuleOptions, SpoolConnectionOptions, ProcessorWorkerOptions } from './module-options.js';
export type { QueueRegistration, QueueScheduler } from './queue-registry.js';
export { Processor, OnJob, OnWorkerEvent, InjectQueue, InjectConnection, InjectFlowProducer } from './decorators.js';
export type { ProcessorOptions, OnJobOptions, OnJobSchedule, ProcessorEvent } from './decorators.js';
export { SpoolWorkers } from './processor-explorer.js';
export { ModuleFlowProducer } from './module-flow-producer.js';
export { DEFAULT_CONNECTION, getQueueToken, getConnectionToken, getFlowProducerToken } from './tokens.js';
export { SpoolBootstrapError, QueueValidationError } from './errors.js';
export type { DtoClass } from './dto.js';
