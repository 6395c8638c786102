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

/**
 * Reads one queue's event rows. A read with nothing new polls every 100 ms
 * until `blockMs` passes (the pool serves the queries: no connection is held
 * between polls); close() ends a pending read at its next poll.
 */
export class PostgresEventReader implements EventReader {
  private closed = false;

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
    for (;;) {
      const { rows } = await this.db().query(`SELECT seq, ms, fields FROM ${this.schema}.events WHERE queue = $1 AND seq > $2 ORDER BY seq LIMIT $3`, [
        this.queue,
        seqOf(after),
        count,
      ]);
      if (rows.length > 0 || this.closed || Date.now() >= until) {
        return rows.map((r) => ({ id: eventId(r.ms, r.seq), fields: fieldsOf(r.fields) }));
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(1, until - Date.now()))).unref?.());
    }
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
