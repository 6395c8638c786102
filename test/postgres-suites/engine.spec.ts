import '../helpers/postgres-run.js';
import { postgresForFile } from '../helpers/postgres.js';
// The engine specs again, every harness store a PostgresStore on a private PostgreSQL started once for the file
// (npm run test:postgres; the default npm test runs the store contract and the tx specs on PostgreSQL only).
// Expected to fail here, by construction: the cases that read or write Redis keys themselves through
// test/helpers/redis-access (TypeError "redisAccess() takes a RedisStore"): once, lease-loss, metrics (hash
// expiry), schedulers (refill), update-data (reaped holder), worker-pause (push names), delayed (Redis clock).
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
