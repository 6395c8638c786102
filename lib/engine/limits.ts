import type { GroupLimits, QueueLimits, RateLimit } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import { assertKnownKeys, assertPlainObject, positiveInteger } from './options.js';

/** Checks a { max, duration } rate limit; errors name the field. */
export function rateLimit(value: unknown, field: string): RateLimit {
  assertPlainObject(value, field);
  assertKnownKeys(value, ['max', 'duration'], field);
  return {
    max: positiveInteger(value.max, `${field}.max`),
    duration: positiveInteger(value.duration, `${field}.duration`),
  };
}

const QUEUE_LIMITS: readonly (keyof QueueLimits)[] = ['rateLimit', 'concurrency', 'groupConcurrency', 'groupRateLimit', 'maxWaiting', 'maxWaitingPerGroup', 'events'];

/** Checks queue.configure() input: each limit a valid value, null (remove) or absent (leave). */
export function queueLimits(value: unknown, field = 'limits'): QueueLimits {
  assertPlainObject(value, field);
  assertKnownKeys(value, QUEUE_LIMITS, field);
  const rate = (key: 'rateLimit' | 'groupRateLimit'): RateLimit | null | undefined =>
    value[key] == null ? (value[key] as null | undefined) : rateLimit(value[key], `${field}.${key}`);
  const count = (key: 'concurrency' | 'groupConcurrency' | 'maxWaiting' | 'maxWaitingPerGroup'): number | null | undefined =>
    value[key] == null ? (value[key] as null | undefined) : positiveInteger(value[key], `${field}.${key}`);
  return {
    rateLimit: rate('rateLimit'),
    concurrency: count('concurrency'),
    groupRateLimit: rate('groupRateLimit'),
    groupConcurrency: count('groupConcurrency'),
    maxWaiting: count('maxWaiting'),
    maxWaitingPerGroup: count('maxWaitingPerGroup'),
    events: eventsSetting(value.events, `${field}.events`),
  };
}

/** The event stream setting: true/false, { maxLen } or null (back to the default). */
function eventsSetting(value: unknown, field: string): QueueLimits['events'] {
  if (value === undefined || value === null || typeof value === 'boolean') return value;
  assertPlainObject(value, field);
  assertKnownKeys(value, ['maxLen'], field);
  return { maxLen: positiveInteger(value.maxLen, `${field}.maxLen`) };
}

/** Checks queue.setGroupLimits() input. */
export function groupLimits(value: unknown, field = 'group limits'): GroupLimits {
  assertPlainObject(value, field);
  assertKnownKeys(value, ['concurrency', 'rateLimit'], field);
  return {
    concurrency: value.concurrency == null ? (value.concurrency as null | undefined) : positiveInteger(value.concurrency, `${field}.concurrency`),
    rateLimit: value.rateLimit == null ? (value.rateLimit as null | undefined) : rateLimit(value.rateLimit, `${field}.rateLimit`),
  };
}

/** Checks the names of queue.pause({ names }) / resume({ names }); undefined: the whole queue. */
export function pauseNames(options: { readonly names?: readonly string[] } | undefined, method: string): readonly string[] | undefined {
  if (options === undefined) return undefined;
  assertPlainObject(options, `${method}() options`);
  assertKnownKeys(options, ['names'], `${method}() options`);
  const { names } = options;
  if (names === undefined) return undefined;
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== 'string' || n.length === 0)) {
    throw new InvalidArgumentError(`${method}() options.names`, 'must be a non-empty array of job names');
  }
  return names;
}

/** Checks a group id argument. */
export function groupArg(group: unknown): string {
  if (typeof group !== 'string' || group.length === 0) throw new InvalidArgumentError('group', 'must be a non-empty group id');
  return group;
}
