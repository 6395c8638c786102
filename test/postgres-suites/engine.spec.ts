import '../helpers/postgres-run.js';
import { postgresForFile } from '../helpers/postgres.js';
// The engine specs again, every harness store a PostgresStore on a private PostgreSQL started once for the file
// (npm run test:postgres; the default npm test runs the store contract and the tx specs on PostgreSQL only).
// The cases that read or write Redis keys themselves (lease-loss and update-data force a reap in the Redis active set,
// metrics checks the hash TTL, schedulers rewrites the scheduler hash, worker-pause reads the push name, delayed
// watches the idle key) are declared redisOnly(reason) and reported here as skipped with that reason.
import '../engine/worker.spec.js';
import '../engine/cancel.spec.js';
import '../engine/errors.spec.js';
import '../engine/idempotency.spec.js';
import '../engine/lease-loss.spec.js';
import '../engine/logs.spec.js';
import '../engine/metrics.spec.js';
import '../engine/name-caps.spec.js';
import '../engine/schedulers.spec.js';
import '../engine/shutdown.spec.js';
import '../engine/timeout.spec.js';
import '../engine/update-data.spec.js';
import '../engine/worker-pause.spec.js';
import '../engine/batch.spec.js';
import '../engine/retry.spec.js';
import '../engine/delayed.spec.js';
import '../engine/delayed-error.spec.js';

postgresForFile();
