/**
 * What happens to a completed job: `kept` is each library's default
 * (BullMQ and bee-queue keep every one, Spool its bounded default retention),
 * `removed` deletes it on completion (BullMQ removeOnComplete: true,
 * bee-queue removeOnSuccess: true, Spool removeOnComplete: true).
 * `all` keeps every completed job on every side (Spool removeOnComplete:
 * false; BullMQ and bee-queue as `kept`): the memory row's cost of a retained
 * completed job, where Spool's default would keep only the newest 1,000.
 */
export type Retention = 'kept' | 'removed' | 'all';

/** A handler's work, awaited per job (the honest rows: setTimeout standing in for awaited I/O); absent: a no-op. */
export type Work = (data: BenchData) => Promise<unknown>;

/** One queue library under test. Every operation works on a fresh, empty queue named by the caller. */
export interface Contender {
  readonly name: string;
  open(url: string): Promise<void>;
  /**
   * Runs WARM_UP_JOBS jobs through bulk add, single add, claim and complete
   * before any timed row: scripts are loaded and the JIT has compiled every
   * library's hot paths, so the first timed repeat is not the slowest.
   */
  warmUp(): Promise<void>;
  close(): Promise<void>;
  /** Adds n jobs with add(), `width` calls in flight. */
  addSingle(queue: string, n: number, width: number): Promise<void>;
  /** Adds n jobs with the library's bulk add, `perCall` per call, one call at a time. */
  addBulk(queue: string, n: number, perCall: number): Promise<void>;
  /**
   * Pre-fills a queue (untimed); with `groups`, job i belongs to group i % groups (Spool only).
   * Libraries whose retention is a job option (Spool, BullMQ) apply `retention` here.
   */
  fill(queue: string, n: number, retention: Retention, groups?: number): Promise<void>;
  /**
   * Starts a worker on a filled queue and resolves once n jobs completed;
   * each job runs `work` (absent: a no-op handler).
   * Libraries whose retention is a worker setting (bee-queue) apply `retention` here.
   */
  process(queue: string, n: number, concurrency: number, retention: Retention, work?: Work): Promise<ProcessResult>;
  /** Add-to-start latency of `samples` jobs added one at a time to an idle worker, ms. */
  latency(queue: string, samples: number): Promise<number[]>;
}

export interface ProcessResult {
  /** From the worker's start to the last completion, ms. */
  readonly ms: number;
  /** Per group (job data `g`), when its last job completed, ms after start. */
  readonly groupDone: ReadonlyMap<number, number>;
}

/** The payload every bench job carries: its index and group. */
export interface BenchData {
  readonly i: number;
  readonly g: number;
}
