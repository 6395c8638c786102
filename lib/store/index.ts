/**
 * Types only: the `Store` and `NotifyAdapter` contracts (records, outcomes,
 * notify messages), for code that implements or wraps a store. An
 * application writes code with `spool` or `spool/engine`.
 *
 * @module spool/store
 */

export type {
  Store,
  JobRecord,
  NewJob,
  Fetch,
  Lease,
  Failure,
  AddOutcome,
  CompleteOutcome,
  Completion,
  CompletionStatus,
  CompleteManyOutcome,
  FailOutcome,
  ExtendOutcome,
  ReleaseOutcome,
  PromoteOutcome,
  ReapOutcome,
  CancelOutcome,
  AddBatchOutcome,
  ClaimOutcome,
  NewFlowNode,
  AddFlowOutcome,
  ChildrenRecord,
  ChildFailure,
  StoredFailurePolicy,
  RedriveOutcome,
  RemoveOutcome,
  DeliverOutcome,
  PageIndex,
  PageQuery,
  Page,
  PurgeQuery,
  PurgeStep,
  RedriveManyOutcome,
  StoredEvent,
  StreamInfo,
  EventReader,
  MetricsRecord,
  MinuteCounts,
  MinuteRecord,
  ImportedJob,
  ImportOutcome,
  ImportState,
} from './store.js';
export type { JobChange, JobChangeKind, JobChangeOutcome, JobChanges, DrainQuery, DrainStep, ObliterateOutcome } from './job-changes.js';
export type { SchedulerStore, SchedulerWrite, SchedulerRecord, MissedPolicy } from './scheduler-store.js';
export type { JobState, JobCounts, RateLimit, QueueLimits, GroupLimits, GroupState, ChildRef } from './store.js';
export type { Clock, ClockTimer } from './clock.js';
export type { NotifyAdapter, SchedMessage, OwnershipMessage, FinishedMessage, Unsubscribe, Announcement } from '../notify/notify-adapter.js';

export type { AclRole, ClusterNodeInfo, EventStreamInfo, ServerReport } from './server-report.js';
