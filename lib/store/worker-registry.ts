import { parseJsonObject } from '../common/json-object.js';
import { ReplyShapeError } from './errors.js';
import { describe } from '../common/validation.js';

/**
 * Which workers serve a queue: each running worker writes a heartbeat to its
 * queue's `workers` hash (lua/worker-beat.lua) and drops its entry when it
 * closes; a worker whose heartbeats stopped (its process died) is left out
 * of reads once its last one is older than the stale bound, and removed by
 * the next heartbeat of any worker of the queue.
 */

/** A live worker of a queue, as its last heartbeat said. */
export interface WorkerInfo {
  readonly id: string;
  readonly hostname: string;
  readonly pid: number;
  readonly concurrency: number;
  /** Jobs it held (running, or leased in its reserve) at its last heartbeat. */
  readonly running: number;
  /** Epoch ms the worker started. */
  readonly startedAt: number;
  /** It was paused (worker.pause()) at its last heartbeat: it claims nothing until resumed. */
  readonly paused: boolean;
  /** Epoch ms its last heartbeat reached the store (the store's clock). */
  readonly seenAt: number;
}

/** What a heartbeat carries: the store adds the time. */
export type WorkerBeat = Omit<WorkerInfo, 'seenAt'>;

export interface WorkerRegistry {
  /** Records a worker's heartbeat, and forgets the workers whose last one is older than `staleMs`. */
  beat(queue: string, worker: WorkerBeat, staleMs: number): Promise<void>;
  /** Forgets a worker (it closed). */
  forgetWorker(queue: string, id: string): Promise<void>;
  /** The workers whose last heartbeat is at most `staleMs` old, oldest started first. */
  listWorkers(queue: string, staleMs: number): Promise<WorkerInfo[]>;
}

/**
 * Pausing one worker from elsewhere (the dashboard): the request waits for
 * the worker's next heartbeat, which takes it. Optional on a Store.
 */
export interface WorkerRequests {
  /** Asks worker `id` to pause (true) or resume (false); a later request replaces an earlier one. */
  requestWorker(queue: string, id: string, paused: boolean): Promise<void>;
  /** The request waiting for worker `id`, taken off as it is read; null when none. */
  takeWorkerRequest(queue: string, id: string): Promise<boolean | null>;
}

/** A stored heartbeat read back, or undefined when it is not one (a hand-edited key): it is left out. */
export function decodeWorker(id: string, json: string): WorkerInfo | undefined {
  const v = parseJsonObject(json);
  if (!v) return undefined;
  const num = (k: string): number | undefined => (typeof v[k] === 'number' && Number.isFinite(v[k]) ? (v[k] as number) : undefined);
  const [pid, concurrency, running, startedAt, seenAt] = [num('pid'), num('concurrency'), num('running'), num('startedAt'), num('seenAt')];
  if (typeof v.hostname !== 'string' || pid === undefined || concurrency === undefined || running === undefined || startedAt === undefined || seenAt === undefined) {
    return undefined;
  }
  // Heartbeats written before workers could pause carry no `paused`.
  return { id, hostname: v.hostname, pid, concurrency, running, startedAt, paused: v.paused === true, seenAt };
}

/**
 * lua/worker-list.lua's reply ({now, id, json, ...}): the workers seen at
 * most `staleMs` before now, oldest started first.
 */
export function liveWorkers(reply: unknown, staleMs: number): WorkerInfo[] {
  if (!Array.isArray(reply) || reply.length % 2 !== 1) throw new ReplyShapeError('worker-list', `expected {now, id, json, ...}, got ${describe(reply)}`);
  const now = Number(reply[0]);
  const out: WorkerInfo[] = [];
  for (let i = 1; i < reply.length; i += 2) {
    const worker = decodeWorker(String(reply[i]), String(reply[i + 1]));
    if (worker && worker.seenAt >= now - staleMs) out.push(worker);
  }
  return out.sort(byStart);
}

/** Oldest started first, then by id: a stable order for tables. */
export function byStart(a: WorkerInfo, b: WorkerInfo): number {
  return a.startedAt - b.startedAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}
