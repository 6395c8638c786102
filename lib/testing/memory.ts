// The in-memory store without the Nest testing module: nothing here loads @nestjs/*.
export { MemoryStore } from './memory-store.js';
export type { MemoryStoreOptions, MemoryStoreEvents } from './memory-store-options.js';
export { MemoryClock } from './memory-clock.js';
export type { ClockMode } from './memory-clock.js';
export { MemoryNotify } from './memory-notify.js';
