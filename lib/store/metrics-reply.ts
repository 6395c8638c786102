import { ReplyShapeError } from './errors.js';
import { decodeHash } from './replies.js';
import type { RawReply } from './reply-values.js';
import type { JobCounts, MetricsRecord, MinuteCounts, MinuteRecord } from './store.js';

/** Duration buckets per minute: h0..h20 (at most 2^k ms) and h21 (longer); lua/includes/metrics. */
export const DURATION_BUCKETS = 22;

const MINUTE_MS = 60_000;
/** The minute's gauge samples (lua/gauges.lua): oldest waiting age and delayed lag, ms. */
export const GAUGE_WAITING = 'gw';
export const GAUGE_LAG = 'gl';

/** Decodes lua/metrics.lua's reply: {now, oldestWaitingSince, earliestDelayedAt, minute, 60 hashes}. */
export function decodeMetrics(counts: JobCounts, reply: RawReply): MetricsRecord {
  if (!Array.isArray(reply) || reply.length !== 64) {
    throw new ReplyShapeError('metrics', `expected 64 entries, got ${Array.isArray(reply) ? reply.length : typeof reply}`);
  }
  const now = Number(reply[0]);
  const minute = Number(reply[3]);
  if (!Number.isFinite(now) || !Number.isFinite(minute)) throw new ReplyShapeError('metrics', 'expected a clock and a minute number');
  const minutes: MinuteRecord[] = [];
  for (let i = 0; i < 60; i++) minutes.push(decodeMinute((minute - 59 + i) * MINUTE_MS, decodeHash(reply[4 + i])));
  return {
    counts,
    now,
    oldestWaitingSince: optionalTime(reply[1]),
    earliestDelayedAt: optionalTime(reply[2]),
    minutes,
  };
}

function decodeMinute(at: number, h: Record<string, string>): MinuteRecord {
  return minuteOfFields(at, Object.entries(h).map(([field, value]) => [field, Number(value) || 0]));
}

/** Counters of one set of jobs, by field (h0..h21, hn, ms, f, d, r, s). */
class Tally {
  readonly fields = new Map<string, number>();

  add(field: string, n: number): void {
    this.fields.set(field, (this.fields.get(field) ?? 0) + n);
  }

  counts(): MinuteCounts {
    const n = (field: string): number => this.fields.get(field) ?? 0;
    const durations: number[] = [];
    for (let k = 0; k < DURATION_BUCKETS; k++) durations.push(n(`h${k}`));
    // Every completion is in one bucket, or in hn when its duration was not measured (lua/includes/metrics).
    const completed = durations.reduce((a, b) => a + b, n('hn'));
    return { completed, failed: n('f'), deadLettered: n('d'), retried: n('r'), stalled: n('s'), durationSum: n('ms'), durations };
  }
}

/**
 * A minute hash's fields as lua/includes/metrics writes them: `<field>` for
 * the jobs of the names without a slot, `<field>:<name>` for a name with
 * one (a name may hold ':' itself: the field part never does). The totals
 * add them all up. Shared with the MemoryStore, which keeps the same fields.
 */
export function minuteOfFields(at: number, fields: Iterable<readonly [string, number]>): MinuteRecord {
  const total = new Tally();
  const other = new Tally();
  const names = new Map<string, Tally>();
  let oldestWaitingMs: number | null = null;
  let delayedLagMs: number | null = null;
  for (const [field, n] of fields) {
    // The gauge samples (lua/gauges.lua) are values, not counts: never summed nor split by name.
    if (field === GAUGE_WAITING) {
      oldestWaitingMs = n;
      continue;
    }
    if (field === GAUGE_LAG) {
      delayedLagMs = n;
      continue;
    }
    total.add(field.split(':', 1)[0]!, n);
    const colon = field.indexOf(':');
    if (colon < 0) {
      other.add(field, n);
      continue;
    }
    const name = field.slice(colon + 1);
    let tally = names.get(name);
    if (!tally) names.set(name, (tally = new Tally()));
    tally.add(field.slice(0, colon), n);
  }
  const byName = new Map<string, MinuteCounts>();
  for (const [name, tally] of names) byName.set(name, tally.counts());
  return { at, ...total.counts(), byName, otherNames: other.counts(), oldestWaitingMs, delayedLagMs };
}

function optionalTime(value: RawReply | undefined): number | null {
  if (value === '' || value == null) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}
