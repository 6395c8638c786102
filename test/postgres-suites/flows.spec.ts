import '../helpers/postgres-run.js';
import { postgresForFile } from '../helpers/postgres.js';
// The flow specs again on a PostgresStore (npm run test:postgres). Left out: add-crash and crash (they kill a producer
// between the two steps of a Redis flow add and between a child's finish and its outbox delivery: on PostgreSQL a
// flow is one transaction and a parent hears of its child in the child's own transaction, so those steps do not exist).
// tree's "rejects a bad tree whole" cases check the counts on both stores and the absence of stray keys on Redis
// only; concurrent's "applies the same child notification twice" replays the Redis outbox: skipped (redisOnly).
import '../flows/cancel.spec.js';
import '../flows/concurrent.spec.js';
import '../flows/policies.spec.js';
import '../flows/redrive.spec.js';
import '../flows/register-queue.spec.js';
import '../flows/tree.spec.js';
import '../flows/wait.spec.js';

postgresForFile();
