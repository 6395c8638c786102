import type { StoredFailurePolicy } from '../store/store.js';
import type { Job } from './job.js';
import type { JobOptions } from './options.js';

/**
 * What a child's death (dead letter or cancel) does to its parent:
 * - failParentOnFailure (default): the parent is dead-lettered (reason
 *   `child-failed`, the child's reason and message in its error); re-driving
 *   the child brings the parent back to waiting for it;
 * - continueParentOnFailure: the parent starts now, even if other children still run;
 * - ignoreDependencyOnFailure: the child counts as done; the parent sees the failure in getChildrenFailures();
 * - removeDependencyOnFailure: the child is dropped from the parent's dependencies.
 */
export type ChildFailurePolicy =
  | 'failParentOnFailure'
  | 'continueParentOnFailure'
  | 'ignoreDependencyOnFailure'
  | 'removeDependencyOnFailure';

/** Each `ChildFailurePolicy` and the short form the store keeps in the child job. */
export const CHILD_FAILURE_POLICIES: Readonly<Record<ChildFailurePolicy, StoredFailurePolicy>> = {
  failParentOnFailure: 'fail',
  continueParentOnFailure: 'continue',
  ignoreDependencyOnFailure: 'ignore',
  removeDependencyOnFailure: 'remove',
};

/** One job of a flow tree; its children run first, in any queue, at any depth. */
export interface FlowJob {
  readonly name: string;
  readonly queueName: string;
  readonly data?: unknown;
  /** The usual job options (dedup excepted); a parent's delay is ignored, it starts when its children are done. */
  readonly opts?: JobOptions;
  /** For a child: what its death does to its parent. Default failParentOnFailure. */
  readonly failurePolicy?: ChildFailurePolicy;
  readonly children?: readonly FlowJob[];
}

/** The flow as added: each job's snapshot and its children's nodes. */
export interface JobNode {
  readonly job: Job;
  readonly children: JobNode[];
}

/** A child's failure as its parent saw it. */
export interface ChildFailureInfo {
  readonly state: 'failed' | 'cancelled';
  readonly reason: string;
  readonly message: string;
  readonly policy: ChildFailurePolicy;
}
