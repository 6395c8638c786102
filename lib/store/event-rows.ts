import { ReplyShapeError } from './errors.js';
import type { StoredEvent } from './operations.js';

/**
 * Stream entries that hold one event per job (lua/includes/events.lua,
 * spool_events): a script that completes, claims or adds several jobs
 * writes their events of one kind as one entry, with fields `event`, the
 * fields with one value for every job, `fields` (the names of the others,
 * comma-separated) and `rows` (JSON, one value list per job). Readers
 * expand such an entry into one event per row.
 *
 * Positions. The k-th row of entry X is the event `X#k`; an ordinary entry's
 * event keeps the entry id. Ids stay ordered and unique: X#0 < X#1 < ... <
 * the next entry. Reading after `X#k` means re-reading entry X (XREAD after
 * the id just before X) and skipping its rows up to k, so a reader that
 * stopped inside an entry resumes at its next row.
 */

/** An event position: the stream entry and, inside a multi-job entry, the row (undefined: the whole entry). */
export interface EventPosition {
  readonly entry: string;
  readonly row: number | undefined;
}

export function parseEventPosition(id: string): EventPosition {
  const hash = id.indexOf('#');
  if (hash < 0) return { entry: id, row: undefined };
  return { entry: id.slice(0, hash), row: Number(id.slice(hash + 1)) };
}

/**
 * Two event ids of one stream in order (-1, 0, 1): by entry ("ms-seq", as
 * numbers), then by row; an entry's own id sorts before its rows.
 */
export function compareEventIds(a: string, b: string): number {
  const pa = parseEventPosition(a);
  const pb = parseEventPosition(b);
  const [am = 0n, as = 0n] = pa.entry.split('-').map(BigInt);
  const [bm = 0n, bs = 0n] = pb.entry.split('-').map(BigInt);
  if (am !== bm) return am < bm ? -1 : 1;
  if (as !== bs) return as < bs ? -1 : 1;
  return Math.sign((pa.row ?? -1) - (pb.row ?? -1));
}

const MAX_SEQ = '18446744073709551615';

/** The stream id just before `entry` ("ms-seq"): XREAD after it returns `entry` first. */
export function idBefore(entry: string): string {
  const [ms = '0', seq = '0'] = entry.split('-');
  const s = BigInt(seq);
  if (s > 0n) return `${ms}-${s - 1n}`;
  const m = BigInt(ms);
  return m > 0n ? `${m - 1n}-${MAX_SEQ}` : '0-0';
}

/** Where an XREAD must start to deliver what follows `after`, and the rows of its first entry already delivered. */
export function readFrom(after: string): { readonly from: string; readonly skip: EventPosition | undefined } {
  const position = parseEventPosition(after);
  if (position.row === undefined) return { from: after, skip: undefined };
  return { from: idBefore(position.entry), skip: position };
}

/**
 * One event per row of each entry (an ordinary entry as it is), leaving out
 * the rows of `skip.entry` up to `skip.row` (already delivered). Every event
 * but the last of a multi-job entry says `entryContinues`.
 */
export function expandEntries(raw: readonly StoredEvent[], skip: EventPosition | undefined): StoredEvent[] {
  const out: StoredEvent[] = [];
  for (const entry of raw) {
    const { rows, fields } = entry.fields;
    if (rows === undefined || fields === undefined) {
      if (skip === undefined || entry.id !== skip.entry) out.push(entry);
      continue;
    }
    const names = fields.split(',');
    const values = parseRows(rows, names.length);
    // The columns with one value in every row are the entry's other fields.
    const { fields: _names, rows: _rows, ...shared } = entry.fields;
    const first = skip !== undefined && entry.id === skip.entry ? (skip.row ?? values.length - 1) + 1 : 0;
    for (let k = first; k < values.length; k++) {
      const event: Record<string, string> = { ...shared };
      names.forEach((name, i) => (event[name] = String(values[k]![i])));
      out.push({ id: `${entry.id}#${k}`, fields: event, ...(k < values.length - 1 && { entryContinues: true }) });
    }
  }
  return out;
}

function parseRows(rows: string, width: number): unknown[][] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(rows);
  } catch {
    throw new ReplyShapeError('XREAD', 'an event entry with rows that are not JSON');
  }
  if (!Array.isArray(parsed) || !parsed.every((row) => Array.isArray(row) && row.length === width)) {
    throw new ReplyShapeError('XREAD', `an event entry whose rows are not lists of ${width} values`);
  }
  return parsed as unknown[][];
}
