import type { JobState, NewJob } from './store.js';

/** Flows as the Store stores and reports them (lua/flow-add, flow-commit, child-done). */

/** A job of a flow named across queues. */
export interface ChildRef {
  readonly queue: string;
  readonly id: string;
}

/** What a dead child does to its parent (see child-done.lua). */
export type StoredFailurePolicy = 'fail' | 'continue' | 'ignore' | 'remove';

/** One node of a flow, validated and encoded by the engine; `children` are refs to other nodes of the same add. */
export interface NewFlowNode {
  readonly queue: string;
  readonly job: NewJob;
  readonly parent?: ChildRef & { readonly policy: StoredFailurePolicy };
  readonly children: readonly ChildRef[];
}

/** What the store answers to a flow add: the whole tree written, or refused because a node's id is taken. */
export type AddFlowOutcome =
  | { readonly status: 'added'; readonly createdAt: number }
  /** `id` in `queue` already names a job: nothing of the flow was kept. */
  | { readonly status: 'duplicate'; readonly queue: string; readonly id: string };

/** A child as its parent saw it fail (failures are listed under their policy). */
export interface ChildFailure {
  readonly state: 'failed' | 'cancelled';
  readonly reason: string;
  readonly message: string;
  readonly policy: StoredFailurePolicy;
}

/** A parent's view of its children: results and failures keyed by child ref. */
export interface ChildrenRecord {
  readonly pending: ChildRef[];
  readonly results: { readonly child: ChildRef; readonly result: string }[];
  readonly failures: { readonly child: ChildRef; readonly failure: ChildFailure }[];
}

/** A parent notification still in an outbox: the child's outcome for its parent. */
export interface DeliverOutcome {
  /** The parent's state after applying it; null when nothing was pending or the parent is gone. */
  readonly parentState: JobState | null;
}
