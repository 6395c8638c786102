import type { JobState } from '../store/store.js';
import type { ClockMode, MemoryClock } from './memory-clock.js';

/** Options of `new MemoryStore(...)`. `clock`: 'real' (default): time flows, and clock.advance(ms) jumps ahead; 'manual': time moves only by clock.advance(ms). Or a clock to share. */
export interface MemoryStoreOptions {
  readonly clock?: ClockMode | MemoryClock;
  /** Default true. false: schedulers are stored and listed, but never tick (QueueTesting's default, so tests see only the jobs they add). */
  readonly schedules?: boolean;
}

/** What MemoryStore tells testing tools: jobs claimed, and attempts over (the job left active). */
export interface MemoryStoreEvents {
  claimed: [queue: string, ids: string[]];
  settled: [queue: string, id: string, state: JobState];
}
