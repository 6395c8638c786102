import type { GroupLimits, QueueLimits, RateLimit } from '../store/store.js';
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

const QUEUE_LIMITS: readonly (keyof QueueLimits)[] = ['rateLimit', 'groupConcurrency', 'groupRateLimit', 'maxWaiting', 'maxWaitingPerGroup'];

/** Checks queue.configure() input: each limit a valid value, null (remove) or absent (leave). */
export function queueLimits(value: unknown, field = 'limits'): QueueLimits {
  assertPlainObject(value, field);
  assertKnownKeys(value, QUEUE_LIMITS, field);
  const rate = (key: 'rateLimit' | 'groupRateLimit'): RateLimit | null | undefined =>
    value[key] == null ? (value[key] as null | undefined) : rateLimit(value[key], `${field}.${key}`);
  const count = (key: 'groupConcurrency' | 'maxWaiting' | 'maxWaitingPerGroup'): number | null | undefined =>
    value[key] == null ? (value[key] as null | undefined) : positiveInteger(value[key], `${field}.${key}`);
  return {
    rateLimit: rate('rateLimit'),
    groupRateLimit: rate('groupRateLimit'),
    groupConcurrency: count('groupConcurrency'),
    maxWaiting: count('maxWaiting'),
    maxWaitingPerGroup: count('maxWaitingPerGroup'),
  };
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
