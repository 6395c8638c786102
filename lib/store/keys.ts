import type { JobState } from './store.js';

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
  readonly wait: string;
  readonly delayed: string;
  readonly active: string;
  readonly completed: string;
  readonly failed: string;
  readonly cancelled: string;
  readonly meta: string;
  readonly hint: string;
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
  readonly pausedNames: string;
  /** Prefix of parked jobs of a paused name: `parkedPrefix + name`. */
  readonly parkedPrefix: string;
  job(id: string): string;
  logs(id: string): string;
  dedup(key: string): string;
  group(gid: string): string;
  groupWait(gid: string): string;
  parked(name: string): string;
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
}

export function queueKeys(prefix: string, queue: string): QueueKeys {
  const base = `{${prefix}:${queue}}`;
  const jobPrefix = `${base}:job:`;
  const logPrefix = `${base}:log:`;
  const groupPrefix = `${base}:g:`;
  const parkedPrefix = `${base}:parked:`;
  return {
    queue,
    wait: `${base}:wait`,
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
    group: (gid) => groupPrefix + gid,
    groupWait: (gid) => `${groupPrefix}${gid}:wait`,
    parked: (name) => parkedPrefix + name,
  };
}

export function channels(prefix: string): Channels {
  return { sched: `${prefix}:sched`, owls: `${prefix}:owls` };
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
  }
}
