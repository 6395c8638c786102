/**
 * Transactional enqueue for a Redis store: `Outbox` (jobs written as rows in
 * the caller's PostgreSQL transaction) and `OutboxRelay` (committed rows moved
 * to Redis, one job per row). Needs the optional peer `pg`.
 *
 * @module spool/outbox
 */

export { Outbox } from './outbox.js';
export type { OutboxOptions, OutboxFailedRow } from './outbox.js';
export { OutboxRowError } from './row.js';
export { OutboxRelay } from './relay.js';
export type { OutboxRelayOptions, RelayStep } from './relay.js';
export { migrateOutbox, OUTBOX_SCHEMA_VERSION } from './migrate.js';
