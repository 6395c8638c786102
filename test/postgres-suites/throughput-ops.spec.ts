import '../helpers/postgres-run.js';
import { postgresForFile } from '../helpers/postgres.js';
// The throughput-control and operations specs again on a PostgresStore (npm run test:postgres).
// Expected to fail here: cases that inspect Redis keys through test/helpers/redis-access (backpressure, cancel-mixed
// x2, event-trim x3, queue-events x2, verify-live x4); cases whose worker processes connect to the run's Redis by URL
// (global-concurrency, pause, rate-limit: test/helpers/worker-process knows no PostgreSQL yet); and two that assert
// Redis's stream entry shape (one entry for several jobs, ids ending #k), which the events table does not have.
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
