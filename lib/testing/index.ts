// Spool's testing tools: an in-memory Store with a controllable clock, and the Nest testing module.
export { MemoryStore } from './memory-store.js';
export type { MemoryStoreOptions, MemoryStoreEvents } from './memory-store.js';
export { MemoryClock } from './memory-clock.js';
export type { ClockMode } from './memory-clock.js';
export { MemoryNotify } from './memory-notify.js';
export { QueueTesting } from './queue-testing.js';
export type { QueueTestingOptions, TestingMode, OverridableModuleBuilder } from './queue-testing.js';
