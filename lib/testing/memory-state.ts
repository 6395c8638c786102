import type { ChildRef, JobRecord, JobState, RateLimit, StoredFailurePolicy } from '../store/store.js';
import { SortedSet } from './sorted-set.js';
import type { MemStream } from './memory-events.js';
import type { MemScheduler } from './memory-schedulers.js';

/** What a finished job leaves behind: keep the newest `count` (-1 all), drop those older than `age` ms (-1 never). */
export interface Retention {
  readonly count: number;
  readonly age: number;
}

export const KEEP_ALL: Retention = { count: -1, age: -1 };

/** A job as MemoryStore keeps it: the fields of the Redis job hash, typed. */
export interface MemJob {
  readonly id: string;
  readonly name: string;
  /** Replaced by update-data (ActiveJob.updateData). */
  data: string;
  readonly opts: string;
  state: JobState;
  attempt: number;
  maxAttempts: number;
  createdAt: number;
  runAt?: number;
  startedAt?: number;
  finishedAt?: number;
  /** 0 = none. */
  deadline: number;
  priority: number;
  lifo: boolean;
  stalled: number;
  claims: number;
  progress?: string;
  result?: string;
  error?: { message: string; stack: string; code: string };
  reason?: string;
  token?: string;
  /** The token that finished the last attempt (a retried call is answered idempotently). */
  finishedToken?: string;
  group?: string;
  /** The producer's trace context (JSON carrier). */
  readonly traceContext?: string;
  cancel: boolean;
  parent?: ChildRef & { readonly policy: StoredFailurePolicy };
  /** Score of its waiting place (kept so a job handed back returns to it). */
  ws?: number;
  /** Dedup key held until the job finishes. */
  dedupKey?: string;
  rc: Retention;
  rf: Retention;
  /** Someone waits for it to finish: announce it on the done channel. */
  watched: boolean;
  /** Flow leaf not released yet: its delay. */
  hold?: number;
  /** Flow add token, until committed. */
  flowToken?: string;
  logs: string[];
  /** Children still pending ("queue\nid"), their results and failures (JSON). */
  deps: Set<string>;
  results: Map<string, string>;
  failures: Map<string, string>;
}

export interface MemGroup {
  paused: boolean;
  active: number;
  cap?: number;
  rl?: RateLimit;
  /** Rate window start and starts in it. */
  rlw: number;
  rln: number;
  /** In the ring or in glimited. */
  sched: boolean;
  readonly wait: SortedSet;
}

/** One queue's indexes and settings, the in-memory twin of its Redis keys. */
export interface MemQueue {
  readonly name: string;
  readonly jobs: Map<string, MemJob>;
  readonly wait: SortedSet;
  /** New ungrouped jobs of priority 0, FIFO, oldest first (the `fifo` list of lua/includes/place). */
  readonly fifo: string[];
  /** The score waitScore just drew for a priority 0 FIFO job: place lists the job that carries it. */
  fresh: number | undefined;
  readonly delayed: SortedSet;
  /** Score = lease expiry. */
  readonly active: SortedSet;
  readonly completed: SortedSet;
  readonly failed: SortedSet;
  readonly cancelled: SortedSet;
  readonly waitingChildren: SortedSet;
  seq: number;
  /** The last job id drawn by reserveIds. */
  ids: number;
  paused: boolean;
  rl?: RateLimit;
  rlw: number;
  rln: number;
  /** Throttled until (RateLimitedError). */
  lu: number;
  /** Global concurrency cap (includes/global-cap). */
  gc?: number;
  /** A claim reached or was turned away by the cap: the next job to leave active wakes idle workers. */
  gcFull: boolean;
  gcap?: number;
  grl?: RateLimit;
  mw?: number;
  mwg?: number;
  rr: number;
  obx: number;
  readonly groups: Map<string, MemGroup>;
  /** Groups ready to be served, round-robin. */
  ring: string[];
  /** Groups waiting for their rate window (score = reopen time). */
  readonly glimited: SortedSet;
  readonly pausedNames: Set<string>;
  readonly parked: Map<string, SortedSet>;
  /** Dedup key -> job id, with its expiry (Infinity: until the job finishes). */
  readonly dedup: Map<string, { readonly id: string; readonly expiresAt: number }>;
  /** Child id -> notification for its parent (JSON), as flow.lua writes it. */
  readonly outbox: Map<string, string>;
  readonly once: Map<string, { readonly outcome: string; readonly expiresAt: number }>;
  /** Flow adds written here but not committed: token -> ids. */
  readonly flowIntents: Map<string, readonly string[]>;
  /** The event stream (lua/includes/events), and its approximate length setting: 0 off, undefined the default. */
  readonly stream: MemStream;
  ev?: number;
  /** Per-minute counters (lua/includes/metrics): minute number -> field -> count. */
  readonly metrics: Map<number, Map<string, number>>;
  /** Job names holding a metric slot (lua/includes/metrics): name -> the last minute it was counted in. */
  readonly metricNames: Map<string, number>;
  /** Schedulers by id, and their ids scored by pending tick (lua/includes/schedulers). */
  readonly schedulers: Map<string, MemScheduler>;
  readonly schedIndex: SortedSet;
  /** Ids ever imported (lua/import.lua's `imported` set): an import run again skips them. */
  readonly imported: Set<string>;
}

export function newQueue(name: string, stream: MemStream): MemQueue {
  return {
    name,
    stream,
    metrics: new Map(),
    metricNames: new Map(),
    schedulers: new Map(),
    schedIndex: new SortedSet(),
    jobs: new Map(),
    wait: new SortedSet(),
    fifo: [],
    fresh: undefined,
    delayed: new SortedSet(),
    active: new SortedSet(),
    completed: new SortedSet(),
    failed: new SortedSet(),
    cancelled: new SortedSet(),
    waitingChildren: new SortedSet(),
    seq: 0,
    ids: 0,
    paused: false,
    rlw: 0,
    rln: 0,
    lu: 0,
    gcFull: false,
    rr: 0,
    obx: 0,
    groups: new Map(),
    ring: [],
    glimited: new SortedSet(),
    pausedNames: new Set(),
    parked: new Map(),
    dedup: new Map(),
    outbox: new Map(),
    once: new Map(),
    flowIntents: new Map(),
    imported: new Set(),
  };
}

export function groupOf(q: MemQueue, gid: string): MemGroup {
  let g = q.groups.get(gid);
  if (!g) {
    g = { paused: false, active: 0, rlw: 0, rln: 0, sched: false, wait: new SortedSet() };
    q.groups.set(gid, g);
  }
  return g;
}

export function parkedOf(q: MemQueue, name: string): SortedSet {
  let set = q.parked.get(name);
  if (!set) {
    set = new SortedSet();
    q.parked.set(name, set);
  }
  return set;
}

/** The index of a state (waiting has several: see MemoryStore.listIds). */
export function finishedIndex(q: MemQueue, state: JobState): SortedSet | undefined {
  if (state === 'completed') return q.completed;
  if (state === 'failed') return q.failed;
  if (state === 'cancelled') return q.cancelled;
  return undefined;
}

/** A snapshot as the engine reads it (decodeJob's shape). */
export function toRecord(job: MemJob): JobRecord {
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    state: job.state,
    attempt: job.attempt,
    maxAttempts: job.maxAttempts,
    createdAt: job.createdAt,
    runAt: job.runAt,
    startedAt: job.startedAt,
    finishedAt: job.finishedAt,
    deadline: job.deadline > 0 ? job.deadline : undefined,
    priority: job.priority,
    lifo: job.lifo,
    stalled: job.stalled,
    progress: job.progress,
    result: job.result,
    error: job.error && { ...job.error },
    reason: job.reason,
    token: job.token,
    group: job.group,
    cancelRequested: job.cancel,
    ...(job.parent && { parent: { queue: job.parent.queue, id: job.parent.id } }),
    ...(job.traceContext !== undefined && { traceContext: job.traceContext }),
  };
}

export function refOf(queue: string, id: string): string {
  return `${queue}\n${id}`;
}
