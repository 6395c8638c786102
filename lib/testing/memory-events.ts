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
  const [ms = '0', seq = '0'] = id.split('-');
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
  private entries: Entry[] = [];
  private lastMs = 0;
  private lastSeq = 0;
  /** Entries ever appended (XINFO entries-added). */
  private added = 0;
  private readonly waiters = new Set<() => void>();

  append(now: number, fields: Record<string, string>, maxLen: number): void {
    if (now > this.lastMs) [this.lastMs, this.lastSeq] = [now, 0];
    else this.lastSeq += 1;
    this.entries.push({ id: `${this.lastMs}-${this.lastSeq}`, fields, ms: this.lastMs, seq: this.lastSeq });
    this.added += 1;
    if (this.entries.length > maxLen) this.entries.splice(0, this.entries.length - maxLen);
    for (const wake of [...this.waiters]) wake();
  }

  /** Entries after `after`, at most `count` (XREAD). */
  after(after: string, count: number): StoredEvent[] {
    const [ms, seq] = parseId(after);
    const out: StoredEvent[] = [];
    for (const e of this.entries) {
      if (out.length >= count) break;
      if (e.ms > ms || (e.ms === ms && e.seq > seq)) out.push({ id: e.id, fields: { ...e.fields } });
    }
    return out;
  }

  /** null until the first entry was written (as XINFO STREAM on a missing key). */
  info(): StreamInfo | null {
    if (this.added === 0) return null;
    return { first: this.entries[0]?.id ?? null, last: `${this.lastMs}-${this.lastSeq}`, length: this.entries.length, added: this.added };
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
