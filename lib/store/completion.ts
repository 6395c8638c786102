import type { CompleteOutcome, JobRecord, JobState, Lease } from './store.js';

/** One job's completion in a batch (Store.completeMany). */
export interface Completion {
  readonly lease: Lease;
  /** The handler's result, JSON. */
  readonly result: string;
  /** How long the handler ran, ms (the queue's per-minute duration buckets); undefined = not measured. */
  readonly durationMs?: number;
}

/** What became of one completion of a batch; each job's lease token is checked on its own. */
export type CompletionStatus =
  | { readonly status: 'completed' | 'cancelled' }
  /** This token finished the job before (the reply of an earlier call was lost). */
  | { readonly status: 'already'; readonly state: JobState }
  | { readonly status: 'lost' };

/** What the store answers to a batch of completions: one status per job, and the next jobs claimed in the same call. */
export interface CompleteManyOutcome {
  /** One per completion, in order. */
  readonly statuses: readonly CompletionStatus[];
  /** The next jobs claimed in the same call (Fetch). */
  readonly next: JobRecord[];
  /** > 0 when the claim was refused by a rate limit: nothing may start before then. */
  readonly waitMs: number;
}

/** A batch of one's answer as complete() gives it, for stores whose complete() is completeMany() of one job. */
export function singleCompletion(outcome: CompleteManyOutcome): CompleteOutcome {
  const s = outcome.statuses[0]!;
  const { next, waitMs } = outcome;
  if (s.status === 'completed' || s.status === 'cancelled') return { status: s.status, next, waitMs };
  return s.status === 'already' ? { status: 'already', state: s.state, next } : { status: 'lost', next };
}
