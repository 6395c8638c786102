import type { JobState } from './store.js';

/** Separates queue and id in a flow child reference: queue names cannot hold a newline. */
export const CHILD_REF_SEPARATOR = '\n';

/** The rule for a key prefix (the first part of every hash tag), checked by the store and the Nest module alike. */
export const PREFIX_PATTERN = /^[^{}\s]{1,64}$/;
export const PREFIX_RULE = '1-64 characters without braces or spaces';

/**
 * The only place Redis key and channel names are built.
 *
 * Every key of one queue carries the hash tag `{prefix:queue}`, so every key a
 * script touches lives in one cluster slot. Scripts that discover job or
 * group ids themselves (claim, promote, reap) build those keys from the
 * prefixes below, which carry the same tag: same slot by construction.
 */
export interface QueueKeys {
  readonly queue: string;
  /** Ungrouped waiting jobs other than those in `fifo` (zset, score from lua/includes/place: priority, then order). */
  readonly wait: string;
  /** New ungrouped waiting jobs of priority 0, FIFO: a list of ids, oldest first (lua/includes/place); built by the scripts from jobPrefix. */
  readonly fifo: string;
  /** Delayed jobs (zset, score = run-at ms). */
  readonly delayed: string;
  /** Active jobs (zset, score = lease expiry ms). */
  readonly active: string;
  /** Completed jobs (zset, score = finishedAt ms). */
  readonly completed: string;
  /** Dead letters (zset, score = finishedAt ms). */
  readonly failed: string;
  /** Cancelled jobs (zset, score = finishedAt ms). */
  readonly cancelled: string;
  /** The queue's hash: id counter, paused flag, limits and counters (lua/includes/queue lists its fields). */
  readonly meta: string;
  /** Wake-hint budget that workers spend before they look for work (string integer, 60 s TTL). */
  readonly hint: string;
  /** Idle-worker marker; `idle + ':push'` names the idle worker an add may hand its new jobs to, `idle + ':pushed:' + worker id` holds them (lua/includes/push). */
  readonly idle: string;
  /** Prefix of job hashes: `jobPrefix + id`. */
  readonly jobPrefix: string;
  /** Prefix of job log lists: `logPrefix + id`. */
  readonly logPrefix: string;
  /** Groups ready to be served, round-robin. */
  readonly ring: string;
  /** Every group with jobs or settings. */
  readonly groups: string;
  /** Groups waiting for their rate window to reopen. */
  readonly glimited: string;
  /** Prefix of group hashes (`groupPrefix + gid`) and group waiting sets (`groupPrefix + gid + ':wait'`). */
  readonly groupPrefix: string;
  /** Paused job names (set). */
  readonly pausedNames: string;
  /** Prefix of parked jobs of a paused name: `parkedPrefix + name`. */
  readonly parkedPrefix: string;
  /**
   * Flow keys (lua/includes/flow builds the same names from the meta key, so
   * they stay out of the 17-key bundle): flow parents waiting for children,
   * and this queue's outbox of notifications for parents in other queues.
   */
  readonly waitingChildren: string;
  /** Notifications for flow parents, child id -> JSON (hash), applied on the parent's queue by child-done. */
  readonly outbox: string;
  /**
   * Flow adds in progress that wrote nodes here (token -> JSON intent), and
   * the decision of one flow add (release or discard), kept in the root's queue.
   */
  readonly flowIntents: string;
  /** Schedulers of this queue (zset, score = pending tick ms, +inf when none; lua/includes/schedulers). */
  readonly schedulers: string;
  /** The queue's live workers: worker id -> JSON heartbeat (lua/worker-beat.lua, lib/store/worker-registry.ts). */
  readonly workers: string;
  /** The same workers by last heartbeat (zset, score = seenAt ms): stale ones are found without reading them all. */
  readonly workersSeen: string;
  /** Prefix of scheduler hashes: `schedulerPrefix + id`. */
  readonly schedulerPrefix: string;
  /** Ids ever imported into the queue (set, lua/import.lua): an import run again skips them, even once the job is gone. */
  readonly imported: string;
  /** A scheduler: its repeat spec, job template and next tick (hash). */
  scheduler(id: string): string;
  /** A pause or resume asked of one worker (string '1' / '0', expiring): its next heartbeat takes it (GETDEL). */
  workerRequest(id: string): string;
  /** The decision of one flow add (release or discard), kept in the root's queue. */
  flowDecision(token: string): string;
  /** A job: the envelope fields of one job (hash). */
  job(id: string): string;
  /** A job's log lines (list). */
  logs(id: string): string;
  /** A dedup key: the id of the job that holds it, with the dedup window as its TTL (string). */
  dedup(key: string): string;
  /** A side effect recorded as done by job.once(), under the job's idempotency key and step. */
  once(key: string): string;
  /** A group's settings and counters (hash). */
  group(gid: string): string;
  /** A group's waiting jobs (zset, score as in `wait`). */
  groupWait(gid: string): string;
  /** Waiting jobs of a paused job name, parked until it resumes (zset). */
  parked(name: string): string;
  /** A parent's pending children ("queue\nid"), completed children's results, failed children. */
  deps(id: string): string;
  /** Results of a flow parent's completed children, "queue\nid" -> result JSON (hash). */
  results(id: string): string;
  /** A flow parent's failed children, "queue\nid" -> failure JSON (hash). */
  failures(id: string): string;
  /** The queue's event stream (lua/includes/events builds the same name from the meta key). */
  readonly events: string;
  /** The stream's entries of several events each, oldest first: "<entry id> <events - 1>" (meta evx sums the counts; lua/includes/events). */
  readonly eventRows: string;
  /** Dead letters of a job name, of a reason, of both (lua/includes/dead builds the same names). */
  deadByName(name: string): string;
  deadByReason(reason: string): string;
  deadByBoth(reason: string, name: string): string;
}

/**
 * The keys every job-moving script receives first, in this order
 * (lua/includes/queue.lua lists the same; test/unit/scripts.spec compares them).
 */
export const QUEUE_KEYS = [
  'wait',
  'delayed',
  'active',
  'completed',
  'failed',
  'cancelled',
  'meta',
  'hint',
  'idle',
  'jobPrefix',
  'logPrefix',
  'ring',
  'groups',
  'glimited',
  'groupPrefix',
  'pausedNames',
  'parkedPrefix',
] as const satisfies readonly (keyof QueueKeys)[];

export type QueueKeyName = (typeof QUEUE_KEYS)[number];

export interface Channels {
  /** New waiting work (`w:<queue>`) and earliest-delayed changes (`d:<ms>:<queue>`). */
  readonly sched: string;
  /** Ownership lost: lease reaped (`lost`) or cancel requested (`cancel`). */
  readonly owls: string;
  /** A watched job finished (`<queue>\n<id>\n<state>`); lua/includes/flow derives it from `sched`. */
  readonly done: string;
}

/** Key names per queue, built once per queue name (every script call needs them). */
export function keyCache(prefix: string): (queue: string) => QueueKeys {
  const built = new Map<string, QueueKeys>();
  return (queue) => {
    let keys = built.get(queue);
    if (!keys) built.set(queue, (keys = queueKeys(prefix, queue)));
    return keys;
  };
}

export function queueKeys(prefix: string, queue: string): QueueKeys {
  const base = `{${prefix}:${queue}}`;
  const jobPrefix = `${base}:job:`;
  const logPrefix = `${base}:log:`;
  const groupPrefix = `${base}:g:`;
  const parkedPrefix = `${base}:parked:`;
  const schedulerPrefix = `${base}:sched:`;
  return {
    queue,
    wait: `${base}:wait`,
    fifo: `${base}:fifo`,
    delayed: `${base}:delayed`,
    active: `${base}:active`,
    completed: `${base}:completed`,
    failed: `${base}:failed`,
    cancelled: `${base}:cancelled`,
    meta: `${base}:meta`,
    hint: `${base}:hint`,
    idle: `${base}:idle`,
    jobPrefix,
    logPrefix,
    ring: `${base}:ring`,
    groups: `${base}:groups`,
    glimited: `${base}:glimited`,
    groupPrefix,
    pausedNames: `${base}:paused-names`,
    parkedPrefix,
    job: (id) => jobPrefix + id,
    logs: (id) => logPrefix + id,
    dedup: (key) => `${base}:dedup:${key}`,
    once: (key) => `${base}:once:${key}`,
    group: (gid) => groupPrefix + gid,
    groupWait: (gid) => `${groupPrefix}${gid}:wait`,
    parked: (name) => parkedPrefix + name,
    waitingChildren: `${base}:waiting-children`,
    outbox: `${base}:outbox`,
    flowIntents: `${base}:flow-intents`,
    schedulers: `${base}:schedulers`,
    workers: `${base}:workers`,
    workersSeen: `${base}:workers-seen`,
    schedulerPrefix,
    imported: `${base}:imported`,
    scheduler: (id) => schedulerPrefix + id,
    workerRequest: (id) => `${base}:worker-request:${id}`,
    flowDecision: (token) => `${base}:flow-decision:${token}`,
    deps: (id) => `${base}:deps:${id}`,
    results: (id) => `${base}:results:${id}`,
    failures: (id) => `${base}:failures:${id}`,
    events: `${base}:events`,
    eventRows: `${base}:events:rows`,
    deadByName: (name) => `${base}:dl:n:${name}`,
    deadByReason: (reason) => `${base}:dl:r:${reason}`,
    deadByBoth: (reason, name) => `${base}:dl:nr:${reason}\n${name}`,
  };
}

export function channels(prefix: string): Channels {
  return { sched: `${prefix}:sched`, owls: `${prefix}:owls`, done: `${prefix}:done` };
}

/** One worker's push list: the jobs an add leased to it (lua/includes/push appends them; the worker waits on it in BLPOP). */
export function pushList(k: QueueKeys, workerId: string): string {
  return `${k.idle}:pushed:${workerId}`;
}

/** The index that holds jobs in `state` (ungrouped waiting jobs only, for 'waiting'). */
export function indexKey(keys: QueueKeys, state: JobState): string {
  switch (state) {
    case 'waiting':
      return keys.wait;
    case 'delayed':
      return keys.delayed;
    case 'active':
      return keys.active;
    case 'completed':
      return keys.completed;
    case 'failed':
      return keys.failed;
    case 'cancelled':
      return keys.cancelled;
    case 'waiting-children':
      return keys.waitingChildren;
  }
}
