/**
 * The engine and the Redis store without the Nest module: it loads no
 * `@nestjs/*` package, so a producer or worker without Nest installs only
 * Spool and `redis`. Everything here is also exported by `spool`.
 *
 * @module spool/engine
 */
// test/unit/entry-points.spec.ts checks that this entry loads no @nestjs/* package.

// Engine
export { Queue } from './queue.js';
export type { QueueOptions, BulkJob, CancelResult, DrainOptions, ObliterateOptions, PayloadValidator } from './queue.js';
export type { JobsPage } from './page.js';
export { Worker } from './worker.js';
export type { Handler } from './worker.js';
export type { WorkerOptions } from './worker-options.js';
export type { WorkerCloseResult } from './close-ledger.js';
export type { SandboxOptions } from './sandbox/options.js';
export type { SandboxRunner } from './sandbox/sandbox.js';
export type { SandboxJob } from './sandbox/protocol.js';
export type { PauseOptions } from './worker-pause.js';
export type { Batch, BatchHandler, BatchOptions } from './batch.js';
export { BatchResultError } from './batch.js';
export type { FailureLogLevels, LogLevel } from './failure-log.js';
export type { WorkerEvents, WorkerEventName } from './events.js';
export { Job } from './job.js';
export { ActiveJob } from './active-job.js';
export type { JobError } from './job.js';
export type { OnceOptions } from './active-job.js';
export { JobStateError, QueueActiveError } from './job-errors.js';
export type { JobOptions, Retention, StoredJobOptions } from './options.js';
export { MAX_PRIORITY, DEFAULT_RETENTION } from './options.js';
export { backoffDelay, decideRetry } from './backoff.js';
export { FlowProducer } from './flow-producer.js';
export type { FlowProducerOptions } from './flow-producer.js';
export { DURATION_BUCKET_BOUNDS_MS, METRIC_NAME_SLOTS } from './metrics.js';
export type { QueueMetrics, MinuteMetrics, HourMetrics, CountedMetrics, DurationStats } from './metrics.js';
export { CHILD_FAILURE_POLICIES } from './flow-types.js';
export type { FlowJob, JobNode, ChildFailurePolicy, ChildFailureInfo } from './flow-types.js';
export type { WaitOptions } from './wait-finished.js';
export { cronTimes } from './scheduler-spec.js';
export type { SchedulerRepeat, SchedulerJob, SchedulerJobOptions, NormalizedRepeat } from './scheduler-spec.js';
export type { SchedulerInfo, UpsertResult } from './schedulers.js';
export type { MissedPolicy } from '../store/scheduler-store.js';
export { toNdjson } from './dead-letters.js';
export { listQueues } from './list-queues.js';
export type {
  DeadLetterReason,
  FailedFilter,
  FailedQuery,
  FailedPage,
  RedriveOptions,
  PurgeOptions,
  FinishedState,
  ExportFilter,
  BulkTarget,
  CancelFilter,
  PromoteFilter,
} from './dead-letters.js';
export { QueueEvents } from './queue-events.js';
export type { QueueEventsOptions, QueueEventsEmitted } from './queue-events.js';
export { QUEUE_EVENT_NAMES } from './queue-events-types.js';
export type { QueueEvent, QueueEventMap, QueueEventName, EventGap } from './queue-events-types.js';
export {
  DuplicateJobIdError,
  UnknownQueueError,
  WaitTimeoutError,
  JobFailedError,
  JobNotFoundError,
  JobNotFailedError,
  JobNotFinishedError,
  ChildrenPendingError,
} from './flow-errors.js';
export type { UnknownKey } from '../common/errors.js';
export type { Backoff, BackoffOptions, BackoffStrategy, CustomBackoff, RetryDecision } from './backoff.js';
export {
  SpoolError,
  InvalidArgumentError,
  UnknownOptionError,
  PeerMissingError,
  PayloadTooLargeError,
  TerminalJobError,
  UnrecoverableError,
  SandboxCrashedError,
  NoHandlerError,
  DeadlineExceededError,
  JobValidationError,
  CorruptJobError,
  ResultSerializationError,
  StoredPayloadTooLargeError,
  JobTimeoutError,
  LeaseLostError,
  JobCancelledError,
  WorkerClosingError,
  ClosedError,
  QueueFullError,
  RateLimitedError,
  DelayedError,
  TransactionalEnqueueUnsupportedError,
} from './errors.js';
export type { TransactionalRefusal } from './errors.js';
export type { EnqueueOptions, TransactionClient } from '../store/transaction.js';
export type { TransactionHandle, TypeOrmEntityManagerLike, TypeOrmQueryRunnerLike, PrismaTransactionLike } from '../store/transaction-handles.js';

// Store
export { RedisStore } from '../store/redis-store.js';
export type { RedisConnection, RedisStoreConfig, RedisStoreOptions, ConnectOptions } from '../store/redis-store.js';
export type { RedisClientLike, RedisEventListener } from '../store/redis-client.js';
export type { Durability } from '../store/store-options.js';
export type { ClusterClientLike, SpoolClusterOptions } from '../store/cluster-client.js';
export type { SentinelClientLike } from '../store/connections/sentinel-client.js';
export type { UrlConnection, HostConnection, ClusterConnection, SentinelConnection, SentinelSettings, SentinelNode, ClientConnection } from '../store/connections/options.js';
export type { TlsOption, TlsSettings, Pem } from '../store/connections/tls.js';
export { ReplicationTimeoutError } from '../store/replication.js';
export { ShardCountMismatchError } from '../store/shard-placement.js';
export { ShardedFlowError } from '../store/sharded-store.js';
export { MAX_SHARDS } from './shards.js';
export {
  StoreError,
  StoreNotConnectedError,
  ScriptError,
  ReplyShapeError,
  FlowAddAbandonedError,
  RedisUnavailableError,
  CommandTimeoutError,
  RedisOutOfMemoryError,
} from '../store/errors.js';
export { UnsupportedServerError } from '../store/server-checks.js';
export type { ServerCheckOptions } from '../store/server-checks.js';
export type { JobState, JobCounts, RateLimit, QueueLimits, GroupLimits, GroupState, ChildRef, WorkerInfo } from '../store/store.js';

// Notify over NATS (the @nats-io peers load only when one is used)
export { NatsNotify, NatsUnavailableError } from '../notify/nats-notify.js';
export type { NatsNotifyOptions } from '../notify/nats-notify.js';
export { NatsPeerMissingError } from '../notify/nats-errors.js';

// Logging
export type { SpoolLogger } from '../logger.js';

// Moving from BullMQ (lib/migrate): the importer is engine-level (no Nest), so both entries carry it.
export { importFromBullMQ, bullmqIdToSpool, BULL_STATES, DEFAULT_STATES } from '../migrate/index.js';
export type { ImportFromBullMQOptions, BullState, ImportProgress, ImportReport, JobNote, QueueReport, StateTally } from '../migrate/index.js';
export { checkDeployment } from './doctor.js';
export type { DiagnosableStore, DoctorOptions, Finding, Severity } from './doctor.js';
