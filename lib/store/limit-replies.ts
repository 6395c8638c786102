import type { GroupState, QueueLimits, RateLimit } from './store.js';
import { int, list, str, type RawReply } from './reply-values.js';

/** Queue and group limits as the meta and group hashes store them. */

/** A rate limit as stored: "max,duration". */
export function encodeRate(rate: RateLimit): string {
  return `${rate.max},${rate.duration}`;
}

function decodeRate(value: RawReply | undefined): RateLimit | null {
  if (value == null || value === '') return null;
  const [max, duration] = str(value).split(',').map(Number);
  return { max: max!, duration: duration! };
}

function optionalCount(value: RawReply | undefined): number | null {
  return value == null || value === '' ? null : Number(value);
}

/** HMGET meta rl gcap grl mw mwg. */
export function decodeLimits(reply: RawReply): QueueLimits {
  const [rl, gcap, grl, mw, mwg, ev, gc] = list('limits', reply);
  return {
    rateLimit: decodeRate(rl),
    concurrency: optionalCount(gc),
    groupConcurrency: optionalCount(gcap),
    groupRateLimit: decodeRate(grl),
    maxWaiting: optionalCount(mw),
    maxWaitingPerGroup: optionalCount(mwg),
    // Only a configured stream setting is listed (absent: on, about 10,000 entries).
    ...(typeof ev === 'string' && { events: ev === '0' ? false : { maxLen: Number(ev) } }),
  };
}

/** HMGET group paused active cap rl, and ZCARD of the group's waiting jobs. */
export function decodeGroup(id: string, fields: RawReply, waiting: RawReply): GroupState {
  const [paused, active, cap, rl] = list('group', fields);
  const rateLimit = decodeRate(rl);
  return {
    id,
    waiting: int('group', waiting),
    active: Number(active ?? 0),
    paused: paused != null,
    ...(cap != null && { concurrency: Number(cap) }),
    ...(rateLimit && { rateLimit }),
  };
}
