import { createHash } from 'node:crypto';
import { InvalidArgumentError } from './errors.js';

/** Where a paged listing resumes: the last entry seen, tied to the listing and filter it came from. */
export interface CursorPosition {
  readonly id: string;
  readonly score: number;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 16);
}

/**
 * Opaque cursor: base64url JSON of the position and the listing's scope
 * (queue, state, filter), followed by a digest. A cursor edited by hand, cut
 * short or reused with another filter fails with InvalidArgumentError
 * instead of reading from an odd place.
 */
export function encodeCursor(scope: string, position: CursorPosition): string {
  const body = Buffer.from(JSON.stringify({ i: position.id, s: position.score })).toString('base64url');
  return `${body}.${digest(`${scope}\n${body}`)}`;
}

export function decodeCursor(cursor: unknown, scope: string, field: string): CursorPosition {
  const invalid = (why: string): InvalidArgumentError =>
    new InvalidArgumentError(field, `is not a cursor this listing returned (${why})`, 'pass the cursor of the previous page unchanged, with the same filter, or omit it to start over');
  if (typeof cursor !== 'string' || cursor.length > 2048) throw invalid('not a string of at most 2048 characters');
  const dot = cursor.lastIndexOf('.');
  if (dot <= 0) throw invalid('malformed');
  const body = cursor.slice(0, dot);
  if (digest(`${scope}\n${body}`) !== cursor.slice(dot + 1)) throw invalid('its digest does not match: altered, or from another filter');
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid('undecodable');
  }
  const { i, s } = (parsed ?? {}) as { i?: unknown; s?: unknown };
  if (typeof i !== 'string' || i.length === 0 || typeof s !== 'number' || !Number.isFinite(s)) throw invalid('missing its position');
  return { id: i, score: s };
}
