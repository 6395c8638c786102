// Spool's testing tools: an in-memory Store with a controllable clock (./memory.ts, no Nest), and the Nest testing module.
export * from './memory.js';
export { QueueTesting } from './queue-testing.js';
export type { QueueTestingOptions, TestingMode, OverridableModuleBuilder } from './queue-testing.js';
