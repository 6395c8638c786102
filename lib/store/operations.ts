// What the operations API reads from a store: metrics, pages of an index, bulk moves, the event stream.
import type { JobState, JobRecord, JobCounts } from './store.js';

/** What one minute counted for some of a queue's jobs: all of them, one job name's, or the other names'. */
export interface MinuteCounts {
  readonly completed: number;
  /** Failed attempts (retried or dead-lettered). */
  readonly failed: number;
  readonly deadLettered: number;
  readonly retried: number;
  readonly stalled: number;
  /** Sum of the handler durations of the completed jobs, ms. */
  readonly durationSum: number;
  /** Completed jobs per duration bucket: index k counts handlers that ran at most 2^k ms (the last one: longer). */
  readonly durations: readonly number[];
}

/** One minute of a queue's counters, as the scripts wrote them (lua/includes/metrics): the totals, and per job name. */
export interface MinuteRecord extends MinuteCounts {
  /** Start of the minute, ms since the epoch. */
  readonly at: number;
  /** The job names that hold one of the queue's metric slots (at most 20), each with its share of the totals. */
  readonly byName: ReadonlyMap<string, MinuteCounts>;
  /** The jobs of every other name (and counts from before names were counted). */
  readonly otherNames: MinuteCounts;
  /** Oldest waiting age sampled in this minute (Store.sampleGauges, field gw), ms; null: no sample. */
  readonly oldestWaitingMs: number | null;
  /** Delayed lag sampled in this minute (field gl), ms; null: no sample. */
  readonly delayedLagMs: number | null;
}

/** What getMetrics reads from the store in one call. */
export interface MetricsRecord {
  readonly counts: JobCounts;
  /** The store's clock when it read (ms). */
  readonly now: number;
  /** When the longest-waiting job became ready (runAt), null when nothing waits. */
  readonly oldestWaitingSince: number | null;
  /** Run-at of the earliest delayed job, null when none is delayed. */
  readonly earliestDelayedAt: number | null;
  /** The last 60 minutes, oldest first, the current (partial) minute last. */
  readonly minutes: readonly MinuteRecord[];
}


/** The index a page reads: a state's, or the dead letters of a job name and/or a reason. */
export type PageIndex =
  | { readonly state: JobState }
  | { readonly failedBy: { readonly name?: string; readonly reason?: string } };

/** One page of an index: at most `limit` jobs out of at most `budget` entries examined. */
export interface PageQuery {
  readonly index: PageIndex;
  readonly order: 'asc' | 'desc';
  /** The last entry of the previous page. */
  readonly after?: { readonly id: string; readonly score: number };
  /** Score (finishedAt for finished states) bounds, inclusive. */
  readonly min?: number;
  readonly max?: number;
  readonly limit: number;
  readonly budget: number;
  /** Case-insensitive text the stored error message must contain. */
  readonly errorContains?: string;
  readonly name?: string;
  /** Ids only: job hashes are not read (unless a filter needs them) nor returned. */
  readonly idsOnly?: boolean;
}

/** One page of a state index as the store reads it: the ids, their jobs, and where the next page starts. */
export interface Page {
  readonly ids: string[];
  /** The jobs of `ids`, in order (empty with idsOnly). */
  readonly jobs: JobRecord[];
  /** The last entry examined; where the next page starts. */
  readonly last?: { readonly id: string; readonly score: number };
  /** Nothing more in range: no next page. */
  readonly done: boolean;
}

/** One batch of a purge as the store runs it: the state, the filters and where the previous batch stopped. */
export interface PurgeQuery {
  readonly state: 'completed' | 'failed' | 'cancelled';
  /** Only jobs finished at or before this time (ms). */
  readonly finishedBefore?: number;
  readonly name?: string;
  /** Jobs removed per script call at most. */
  readonly batch: number;
  /** Entries examined per script call at most. */
  readonly budget: number;
  /** The last job that stayed in the previous call ('' at first). */
  readonly cursor: string;
}

/** What one batch of a purge removed, and whether the purge is done. */
export interface PurgeStep {
  readonly removed: number;
  readonly done: boolean;
  readonly cursor: string;
}

/** What a bulk redrive moved. */
export interface RedriveManyOutcome {
  readonly moved: number;
  /** Moved jobs that report to a flow parent (the store has delivered their notifications when it resolves). */
  readonly withParent: string[];
}

/** One entry of a queue's event stream. */
export interface StoredEvent {
  readonly id: string;
  readonly fields: Readonly<Record<string, string>>;
  /** More events of the same stream entry follow (an entry written for several jobs, see event-rows). */
  readonly entryContinues?: boolean;
}

/** The retained part of a stream: its first entry, the last id written, entries retained and entries ever added. */
export interface StreamInfo {
  readonly first: string | null;
  readonly last: string;
  readonly length: number;
  readonly added: number;
}

/** A reader of one queue's event stream on its own connection (blocking reads must not hold the command connection). */
export interface EventReader {
  /** Entries after `after`, waiting up to `blockMs` for one; [] on timeout. Rejects when the connection drops. */
  read(after: string, count: number, blockMs: number): Promise<StoredEvent[]>;
  /** null when the stream does not exist (yet). */
  info(): Promise<StreamInfo | null>;
  close(): Promise<void>;
}
