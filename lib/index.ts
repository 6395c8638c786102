/**
 * Everything a Nest application writes code with: the engine (`Queue`,
 * `Worker`, `FlowProducer`, `RedisStore`, the errors), the Nest module with
 * its decorators, and the dashboard. Needs the Nest peers; the same engine
 * without Nest is `spool/engine`, the Store contract types are on `spool/store`.
 *
 * @module spool
 */
// Re-exports the engine (lib/engine/index.ts), the Nest module and the dashboard.

export * from './engine/index.js';
// Before the Nest module: a missing Nest peer is one clear error (lib/nest/peers.ts).
import './nest/peers.js';
export * from './nest/index.js';
export * from './dashboard/index.js';
