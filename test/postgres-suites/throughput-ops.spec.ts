import '../helpers/postgres-run.js';
import { postgresForFile } from '../helpers/postgres.js';
// The throughput-control and operations specs again on a PostgresStore (npm run test:postgres).
// Cases that inspect Redis itself (cancel-mixed x2, event-trim x3, queue-events x2, verify-live x4) are redisOnly(reason),
// reported as skipped; backpressure and queue-events check what a user observes on both stores and the Redis layout
// on Redis only. global-concurrency, pause and rate-limit start worker processes on the test's PostgreSQL schema.
import '../throughput/backpressure.spec.js';
import '../throughput/global-concurrency.spec.js';
import '../throughput/groups.spec.js';
import '../throughput/pause.spec.js';
import '../throughput/rate-limit.spec.js';
import '../ops/cancel-mixed.spec.js';
import '../ops/count-jobs.spec.js';
import '../ops/dead-letters.spec.js';
import '../ops/event-trim.spec.js';
import '../ops/queue-events.spec.js';
import '../ops/verify-live.spec.js';

postgresForFile();
