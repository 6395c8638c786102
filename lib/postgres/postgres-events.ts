import type { EventReader, StoredEvent, StreamInfo } from '../store/store.js';
import { postgresError } from './errors.js';
import type { Queryable } from './migrate.js';

/** Event ids are "<ms>-<seq>" (the Redis stream id shape QueueEvents accepts); seq is the events table's serial. */
function seqOf(id: string): number {
  const [, seq = '0'] = id.split('#')[0]!.split('-');
  return Number(seq) || 0;
}

/**
 * An event's id: "<ms>-<seq>", the seq zero-padded so that ids sort as text in the order they were written
 * (the seq is the table's serial, not a per-millisecond counter as on Redis).
 */
function eventId(ms: unknown, seq: unknown): string {
  return `${String(ms)}-${String(seq).padStart(16, '0')}`;
}

/** Field values as Redis streams hold them: strings. */
function fieldsOf(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw && typeof raw === 'object') for (const [k, v] of Object.entries(raw)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return out;
}

/** A read's view: the rows after the cursor and the snapshot they were read under. */
interface Observation {
  /** The highest seq of the queue's rows this snapshot saw. */
  readonly upTo: number;
  /** The snapshot's xmax: every transaction that had drawn a seq up to upTo has an xid below it. */
  readonly xmax: bigint;
}

/**
 * Reads one queue's event rows, in seq order, and only rows whose place in
 * that order is final. seq is drawn when a row is inserted, but transactions
 * commit in any order: a reader that went past seq 105 while seq 104 was
 * still uncommitted would never see 104. So each read also notes the
 * snapshot's xmax: every row with a seq up to the highest one it saw was
 * written by a transaction whose xid is below that xmax (emit() takes its
 * xid before drawing the seq, and the sequence only grows). Once a later
 * snapshot's xmin has passed it, all those transactions have ended, and the
 * rows up to that seq are delivered. With no other transaction running
 * (xmin = xmax), rows go out on the read that sees them; otherwise on the
 * next one, a few ms later. A transaction left open for long holds the
 * queue's events back as long (set idle_in_transaction_session_timeout).
 * A read with nothing new polls every 100 ms until `blockMs` passes (the
 * pool serves the queries: no connection is held between polls); close()
 * ends a pending read at its next poll.
 */
export class PostgresEventReader implements EventReader {
  private closed = false;
  /** Reads whose rows are not known final yet, oldest first. */
  private observations: Observation[] = [];

  constructor(private readonly db: () => Queryable, private readonly schema: string, private readonly queue: string) {}

  /** Errors typed as the store's calls are (a restart is PostgresUnavailableError): QueueEvents waits those out. */
  async read(after: string, count: number, blockMs: number): Promise<StoredEvent[]> {
    try {
      return await this.poll(after, count, blockMs);
    } catch (err) {
      throw postgresError('events read', err);
    }
  }

  private async poll(after: string, count: number, blockMs: number): Promise<StoredEvent[]> {
    const until = Date.now() + blockMs;
    const cursor = seqOf(after);
    for (;;) {
      const { rows: [view] } = await this.db().query(
        `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin, pg_snapshot_xmax(pg_current_snapshot())::text AS xmax,
                coalesce((SELECT json_agg(e ORDER BY e.seq) FROM (SELECT seq, ms, fields FROM ${this.schema}.events
                           WHERE queue = $1 AND seq > $2 ORDER BY seq LIMIT $3) e), '[]') AS rows`,
        [this.queue, cursor, count],
      );
      const rows = (view?.rows ?? []) as { seq: number | string; ms: number | string; fields: unknown }[];
      const settled = this.settle(BigInt(String(view?.xmin ?? 0)), BigInt(String(view?.xmax ?? 0)), rows.length > 0 ? Number(rows[rows.length - 1]!.seq) : undefined);
      const ready = rows.filter((r) => Number(r.seq) <= settled);
      if (ready.length > 0 || this.closed || Date.now() >= until) {
        return ready.map((r) => ({ id: eventId(r.ms, r.seq), fields: fieldsOf(r.fields) }));
      }
      // Rows seen but not final yet: their writers end within ms, so look again soon.
      const pause = rows.length > 0 ? 5 : 100;
      await new Promise((resolve) => setTimeout(resolve, Math.min(pause, Math.max(1, until - Date.now()))).unref?.());
    }
  }

  /** The highest seq whose rows are final, given this read's snapshot; notes the read for the next ones. */
  private settle(xmin: bigint, xmax: bigint, upTo: number | undefined): number {
    // No transaction was running: every row the snapshot saw is final.
    if (xmin === xmax) {
      this.observations = [];
      return upTo ?? -1;
    }
    let settled = -1;
    while (this.observations.length > 0 && this.observations[0]!.xmax <= xmin) settled = this.observations.shift()!.upTo;
    const last = this.observations[this.observations.length - 1];
    if (upTo !== undefined && upTo > settled && (last === undefined || upTo > last.upTo)) this.observations.push({ upTo, xmax });
    return settled;
  }

  async info(): Promise<StreamInfo | null> {
    const { rows } = await this.query(
      `SELECT (SELECT ms || '-' || lpad(seq::text, 16, '0') FROM ${this.schema}.events WHERE queue = $1 ORDER BY seq LIMIT 1) AS first,
              (SELECT ms || '-' || lpad(seq::text, 16, '0') FROM ${this.schema}.events WHERE queue = $1 ORDER BY seq DESC LIMIT 1) AS last,
              (SELECT count(*) FROM ${this.schema}.events WHERE queue = $1) AS length,
              (SELECT n FROM ${this.schema}.event_trims WHERE queue = $1) AS trimmed`,
      [this.queue],
    );
    const r = rows[0];
    if (!r || r.last === null) return null;
    return { first: r.first === null ? null : String(r.first), last: String(r.last), length: Number(r.length), added: Number(r.length) + Number(r.trimmed ?? 0) };
  }

  private async query(text: string, values: unknown[]): Promise<{ readonly rows: Record<string, unknown>[] }> {
    try {
      return await this.db().query(text, values);
    } catch (err) {
      throw postgresError('events info', err);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}
