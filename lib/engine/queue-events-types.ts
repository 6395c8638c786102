import type { JobState } from '../store/store.js';
import type { StoredEvent } from '../store/store.js';
import { compareEventIds } from '../store/event-rows.js';

/**
 * What each entry of a queue's event stream says (lua/includes/events.lua
 * writes them, in the script of the transition). Payloads stay small: a
 * completed event carries the result's size, not the result.
 */
export interface QueueEventMap {
  added: { readonly jobId: string; readonly name: string; readonly state: JobState };
  active: { readonly jobId: string; readonly attempt: number };
  /** The progress value when it is at most 1 KiB of JSON, else only its size. */
  progress: { readonly jobId: string; readonly progress?: unknown; readonly size?: number };
  completed: { readonly jobId: string; readonly size: number };
  /** next: 'retry' (delay ms follows) or 'dead' (dead-lettered with reason). The message is cut at 1 KiB. */
  failed: { readonly jobId: string; readonly next: 'retry' | 'dead'; readonly reason: string; readonly message: string; readonly delay?: number };
  delayed: { readonly jobId: string; readonly delay: number; readonly runAt: number };
  /** The job's lease expired; next says whether it is delivered again or dead-lettered. */
  stalled: { readonly jobId: string; readonly next: 'retry' | 'dead' };
  cancelled: { readonly jobId: string };
  redriven: { readonly jobId: string; readonly state: JobState };
  removed: { readonly jobId: string; readonly state: JobState };
  /** The queue (no name) or one job name was paused. */
  paused: { readonly name?: string };
  resumed: { readonly name?: string };
}

/** The name of an event of a queue's event stream (`QueueEvents`). */
export type QueueEventName = keyof QueueEventMap;

/** Every event name a queue's event stream carries. */
export const QUEUE_EVENT_NAMES: readonly QueueEventName[] = [
  'added', 'active', 'progress', 'completed', 'failed', 'delayed', 'stalled', 'cancelled', 'redriven', 'removed', 'paused', 'resumed',
];

/** One event: its stream id (ordered, unique), its name and its fields. */
export type QueueEvent<K extends QueueEventName = QueueEventName> = {
  [E in K]: { readonly id: string; readonly event: E } & QueueEventMap[E];
}[K];

/** Events between `after` and `resumedAt` were trimmed from the stream before this reader got them. */
export interface EventGap {
  readonly event: 'gap';
  /** The last id delivered before the gap. */
  readonly after: string;
  /** The first id still retained, where delivery resumes (null: none yet). */
  readonly resumedAt: string | null;
}

const NUMBERS = new Set(['attempt', 'size', 'delay', 'runAt']);

/** A stream entry as a typed event; null for an entry of an event this version does not know. */
export function decodeEvent(entry: StoredEvent): QueueEvent | null {
  const { event, ...fields } = entry.fields;
  if (!event || !(QUEUE_EVENT_NAMES as readonly string[]).includes(event)) return null;
  const out: Record<string, unknown> = { id: entry.id, event };
  for (const [key, value] of Object.entries(fields)) {
    if (NUMBERS.has(key)) out[key] = Number(value);
    else if (key === 'progress') out[key] = parseProgress(value);
    else out[key] = value;
  }
  return out as unknown as QueueEvent;
}

function parseProgress(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

/**
 * Event ids compared as numbers: "ms-seq" (a stream entry), "ms-seq#row"
 * (one job's event inside an entry written for several jobs; the entry's
 * own id sorts before its rows), comma-separated per shard.
 */
export function compareIds(a: string, b: string): number {
  if (a.includes(',') || b.includes(',')) {
    // Positions of a sharded queue: `a` is past `b` when it is past it on any shard.
    const bs = b.split(',');
    const each = a.split(',').map((id, k) => compareIds(id, bs[k] ?? '0-0'));
    return each.some((c) => c > 0) ? 1 : each.every((c) => c === 0) ? 0 : -1;
  }
  return compareEventIds(a, b);
}
