import { ReplyShapeError } from './errors.js';
import { decodeHash } from './replies.js';
import type { RawReply } from './reply-values.js';
import type { JobCounts, MetricsRecord, MinuteRecord } from './store.js';

/** Duration buckets per minute: h0..h20 (at most 2^k ms) and h21 (longer); lua/includes/metrics. */
export const DURATION_BUCKETS = 22;

const MINUTE_MS = 60_000;

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
  const n = (field: string): number => Number(h[field] ?? 0) || 0;
  const durations: number[] = [];
  for (let k = 0; k < DURATION_BUCKETS; k++) durations.push(n(`h${k}`));
  // Every completion is in one bucket, or in hn when its duration was not measured (lua/includes/metrics).
  const completed = durations.reduce((a, b) => a + b, n('hn'));
  return { at, completed, failed: n('f'), deadLettered: n('d'), retried: n('r'), stalled: n('s'), durationSum: n('ms'), durations };
}

function optionalTime(value: RawReply | undefined): number | null {
  if (value === '' || value == null) return null;
  const n = Number(value);
  return Number.isFinite(n) ? n : null;
}
