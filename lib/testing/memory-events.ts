import type { EventReader, StoredEvent, StreamInfo } from '../store/store.js';
import type { Ctx } from './memory-moves.js';

/** lua/includes/events: the stream's length when the queue settings say nothing. */
const DEFAULT_LEN = 10_000;
/** Error messages and progress values longer than this are cut (lua/includes/events spool_event_text). */
const TEXT_MAX = 1024;

interface Entry extends StoredEvent {
  readonly ms: number;
  readonly seq: number;
}

function parseId(id: string): [ms: number, seq: number] {
  // Entries here hold one event each: a row suffix (#k, Redis entries written for several jobs) never names one of them.
  const [ms = '0', seq = '0'] = id.split('#')[0]!.split('-');
  return [Number(ms), Number(seq)];
}

/**
 * One queue's event stream, the in-memory twin of `{prefix:queue}:events`:
 * ids "ms-seq" on the store's clock, always increasing, and trimmed from
 * the head to the queue's length setting. Redis trims with `MAXLEN ~`
 * (whole nodes, so it may keep a few more); this trims exactly: both keep
 * at least the length asked for.
 */
export class MemStream {
  /** Retained entries are entries[head..]: trimming moves head (O(1)), compaction happens now and then. */
  private entries: Entry[] = [];
  private head = 0;
  private lastMs = 0;
  private lastSeq = 0;
  /** Entries ever appended (XINFO entries-added). */
  private added = 0;
  private readonly waiters = new Set<() => void>();

  private get length(): number {
    return this.entries.length - this.head;
  }

  append(now: number, fields: Record<string, string>, maxLen: number): void {
    if (now > this.lastMs) [this.lastMs, this.lastSeq] = [now, 0];
    else this.lastSeq += 1;
    this.entries.push({ id: `${this.lastMs}-${this.lastSeq}`, fields, ms: this.lastMs, seq: this.lastSeq });
    this.added += 1;
    if (this.length > maxLen) this.head = this.entries.length - maxLen;
    if (this.head > 1024 && this.head > this.entries.length / 2) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
    for (const wake of [...this.waiters]) wake();
  }

  /** Entries after `after`, at most `count` (XREAD). */
  after(after: string, count: number): StoredEvent[] {
    const [ms, seq] = parseId(after);
    // Ids only grow: binary search for the first entry after the id.
    let lo = this.head;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const e = this.entries[mid]!;
      if (e.ms > ms || (e.ms === ms && e.seq > seq)) hi = mid;
      else lo = mid + 1;
    }
    return this.entries.slice(lo, lo + count).map((e) => ({ id: e.id, fields: { ...e.fields } }));
  }

  /** null until the first entry was written (as XINFO STREAM on a missing key). */
  info(): StreamInfo | null {
    if (this.added === 0) return null;
    return { first: this.entries[this.head]?.id ?? null, last: `${this.lastMs}-${this.lastSeq}`, length: this.length, added: this.added };
  }

  /** Calls `wake` on the next append; returns the way to stop listening. */
  listen(wake: () => void): () => void {
    this.waiters.add(wake);
    return () => this.waiters.delete(wake);
  }
}

/** spool_event_text: long texts are cut at 1 KiB (the job keeps the whole). */
export function eventText(text: string | undefined): string {
  if (!text) return '';
  const bytes = Buffer.from(text);
  return bytes.length > TEXT_MAX ? bytes.subarray(0, TEXT_MAX).toString() : text;
}

/** spool_event: appends one event when the queue's stream is on. Field values are written as Redis stores them: strings. */
export function emit(ctx: Ctx, event: string, fields: Record<string, string | number> = {}): void {
  const len = ctx.q.ev ?? DEFAULT_LEN;
  if (len <= 0) return;
  const entry: Record<string, string> = { event };
  for (const [k, v] of Object.entries(fields)) entry[k] = String(v);
  ctx.q.stream.append(ctx.now, entry, len);
}

/**
 * A reader of one queue's stream: a read with nothing new waits (in real
 * time, whatever the store's clock does) until an entry comes or blockMs
 * passes; close() ends a pending read at once, so no timer outlives a test.
 */
export class MemoryEventReader implements EventReader {
  private pending: (() => void) | undefined;
  private closed = false;

  constructor(private readonly stream: MemStream) {}

  read(after: string, count: number, blockMs: number): Promise<StoredEvent[]> {
    const now = this.stream.after(after, count);
    if (now.length > 0 || this.closed) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        stop();
        this.pending = undefined;
        resolve(this.stream.after(after, count));
      };
      const timer = setTimeout(done, blockMs);
      timer.unref?.();
      const stop = this.stream.listen(done);
      this.pending = done;
    });
  }

  async info(): Promise<StreamInfo | null> {
    return this.stream.info();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.pending?.();
  }
}
