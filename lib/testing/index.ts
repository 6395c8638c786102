/**
 * Testing tools: `MemoryStore`, an in-process Store with a controllable clock
 * (no Nest needed), and `QueueTesting`, which swaps every connection of a
 * Nest testing module for it.
 *
 * @module spool/testing
 */
export * from './memory.js';
export { QueueTesting } from './queue-testing.js';
export type { QueueTestingOptions, TestingMode, OverridableModuleBuilder, JobFilter, RunFilter } from './queue-testing.js';
export { spoolMatchers } from './matchers.js';
export type { SpoolMatchers, SpoolMatcherContext, SpoolMatcherResult, InspectableQueue } from './matchers.js';
