/** The parts of a BullMQ queue an import reads, by BullMQ's names (`--states`). */
export type BullState = 'wait' | 'paused' | 'prioritized' | 'delayed' | 'waiting-children' | 'failed' | 'completed' | 'schedulers' | 'active';

/** Every part, in the order an import takes them: flow parents before their children, schedulers before delayed ticks are judged. */
export const BULL_STATES: readonly BullState[] = ['waiting-children', 'schedulers', 'wait', 'paused', 'prioritized', 'delayed', 'failed', 'completed', 'active'];

/** What an import reads unless told otherwise: completed jobs are history, left out unless asked for; active ones are only counted. */
export const DEFAULT_STATES: readonly BullState[] = ['waiting-children', 'schedulers', 'wait', 'paused', 'prioritized', 'delayed', 'failed', 'active'];

/** One job (or scheduler) the report lists: skipped, or imported with something that did not carry over. */
export interface JobNote {
  readonly queue: string;
  readonly state: BullState;
  /** BullMQ's id (a scheduler's id or repeat key). */
  readonly bullId: string;
  /** The Spool id it has (or would have). */
  readonly spoolId?: string;
  readonly outcome: 'imported' | 'exists' | 'skipped';
  /** Why it was skipped: a short category, the same for every job it applies to. */
  readonly reason?: string;
  /** This job's particulars of the reason. */
  readonly detail?: string;
  /** What did not carry over. */
  readonly notCarried: readonly string[];
}

/** Per state of one queue. */
export interface StateTally {
  found: number;
  imported: number;
  /** Already in Spool (imported before, or added there with the same id). */
  existing: number;
  /** Skipped, by reason. */
  skipped: Record<string, number>;
  /** Jobs imported with at least one thing not carried over. */
  partial: number;
  /** BullMQ's copies removed (--remove-imported). */
  removed: number;
}

export interface QueueReport {
  readonly queue: string;
  readonly states: Partial<Record<BullState, StateTally>>;
  /** BullMQ's queue was paused, and so is Spool's now (only when waiting jobs were imported). */
  paused: boolean;
  readonly warnings: string[];
}

/** What importFromBullMQ did (with dryRun: what it would do; nothing written). */
export interface ImportReport {
  readonly dryRun: boolean;
  readonly queues: QueueReport[];
  /** Per-job notes, the first `noteLimit`; `notesDropped` counts the rest (onNote sees them all). */
  readonly notes: JobNote[];
  notesDropped: number;
}

/** Where the import is, for a progress bar: jobs done of those found so far in the states read. */
export interface ImportProgress {
  readonly queue: string;
  readonly state: BullState;
  readonly done: number;
  readonly total: number;
}

export function emptyTally(): StateTally {
  return { found: 0, imported: 0, existing: 0, skipped: {}, partial: 0, removed: 0 };
}

/** Keeps what a report holds bounded: counts for every job, notes for the first `limit`. */
export class ReportBuilder {
  readonly report: ImportReport;

  constructor(
    dryRun: boolean,
    private readonly limit: number,
    private readonly onNote?: (note: JobNote) => void,
  ) {
    this.report = { dryRun, queues: [], notes: [], notesDropped: 0 };
  }

  queue(name: string): QueueReport {
    const q: QueueReport = { queue: name, states: {}, paused: false, warnings: [] };
    this.report.queues.push(q);
    return q;
  }

  tally(q: QueueReport, state: BullState): StateTally {
    return (q.states[state] ??= emptyTally());
  }

  /** Counts one job's outcome and lists it when there is something to say. */
  record(q: QueueReport, note: JobNote): void {
    const t = this.tally(q, note.state);
    if (note.outcome === 'imported') {
      t.imported += 1;
      if (note.notCarried.length > 0) t.partial += 1;
    } else if (note.outcome === 'exists') {
      t.existing += 1;
    } else {
      const reason = note.reason ?? 'skipped';
      t.skipped[reason] = (t.skipped[reason] ?? 0) + 1;
    }
    if (note.outcome === 'exists' || (note.outcome === 'imported' && note.notCarried.length === 0)) return;
    this.onNote?.(note);
    if (this.report.notes.length < this.limit) this.report.notes.push(note);
    else this.report.notesDropped += 1;
  }
}
