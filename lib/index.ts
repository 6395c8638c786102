// Spool's public API. Everything a user imports comes from here, by name.

// Engine
export { Queue } from './engine/queue.js';
export type { QueueOptions, BulkJob, CancelResult, PayloadValidator } from './engine/queue.js';
export { Worker } from './engine/worker.js';
export type { Handler } from './engine/worker.js';
export type { WorkerOptions } from './engine/worker-options.js';
export type { WorkerEvents, WorkerEventName } from './engine/events.js';
export { Job, ActiveJob } from './engine/job.js';
export type { JobError, OnceOptions } from './engine/job.js';
export type { JobOptions, Retention, StoredJobOptions } from './engine/options.js';
export { MAX_PRIORITY } from './engine/options.js';
export { backoffDelay, decideRetry } from './engine/backoff.js';
export { FlowProducer } from './engine/flow-producer.js';
export { DURATION_BUCKET_BOUNDS_MS } from './engine/metrics.js';
export type { QueueMetrics, MinuteMetrics, DurationStats } from './engine/metrics.js';
export type { FlowProducerOptions } from './engine/flow-producer.js';
export { CHILD_FAILURE_POLICIES } from './engine/flow-types.js';
export type { FlowJob, JobNode, ChildFailurePolicy, ChildFailureInfo } from './engine/flow-types.js';
export type { WaitOptions } from './engine/wait-finished.js';
export {
  DuplicateJobIdError,
  UnknownQueueError,
  WaitTimeoutError,
  JobFailedError,
  JobNotFoundError,
  JobNotFailedError,
  JobNotFinishedError,
  ChildrenPendingError,
} from './engine/flow-errors.js';
export type { Backoff, BackoffOptions, BackoffStrategy, CustomBackoff, RetryDecision } from './engine/backoff.js';
export {
  SpoolError,
  InvalidArgumentError,
  UnknownOptionError,
  PayloadTooLargeError,
  TerminalJobError,
  UnrecoverableError,
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
} from './engine/errors.js';

// Store
export { RedisStore } from './store/redis-store.js';
export type { RedisConnection, RedisStoreOptions, ConnectOptions } from './store/redis-store.js';
export type { RedisClientLike } from './store/redis-client.js';
export {
  StoreError,
  StoreNotConnectedError,
  ScriptError,
  ReplyShapeError,
  FlowAddAbandonedError,
  RedisUnavailableError,
  RedisOutOfMemoryError,
} from './store/errors.js';
export { UnsupportedServerError } from './store/server-checks.js';
export type { ServerCheckOptions } from './store/server-checks.js';
export type {
  Store,
  JobState,
  JobCounts,
  JobRecord,
  NewJob,
  Fetch,
  Lease,
  Failure,
  AddOutcome,
  CompleteOutcome,
  FailOutcome,
  ExtendOutcome,
  ReleaseOutcome,
  PromoteOutcome,
  ReapOutcome,
  CancelOutcome,
  AddBatchOutcome,
  ClaimOutcome,
  RateLimit,
  QueueLimits,
  GroupLimits,
  GroupState,
  ChildRef,
  NewFlowNode,
  AddFlowOutcome,
  ChildrenRecord,
  ChildFailure,
  StoredFailurePolicy,
  RedriveOutcome,
  RemoveOutcome,
  DeliverOutcome,
  MetricsRecord,
  MinuteRecord,
} from './store/store.js';

// Notify
export type { NotifyAdapter, SchedMessage, OwnershipMessage, FinishedMessage, Unsubscribe } from './notify/notify-adapter.js';

// Logging
export type { SpoolLogger } from './logger.js';

// NestJS module
export * from './nest/index.js';
