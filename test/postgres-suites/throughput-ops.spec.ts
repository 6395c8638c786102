import { postgresForFile } from '../helpers/postgres.js';
// The throughput-control and operations specs again on a PostgresStore (npm run test:postgres).
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
