import type { JobState } from './store.js';
import { ReplyShapeError } from './errors.js';
import { JOB_STATES } from './store.js';
import { describe } from '../common/validation.js';

/**
 * What the client gives back: Lua tables become arrays, false becomes null
 * (RESP2 and RESP3 alike). Plain HGETALL is a flat array over RESP2 and a map
 * (object) over RESP3, node-redis v6's default.
 */
export type RawReply = string | number | null | RawReply[] | { readonly [field: string]: RawReply };

export function list(script: string, reply: RawReply): RawReply[] {
  if (!Array.isArray(reply)) throw new ReplyShapeError(script, `expected an array, got ${typeof reply}`);
  return reply;
}

export function int(script: string, reply: RawReply | undefined): number {
  const n = typeof reply === 'number' ? reply : Number(reply);
  if (!Number.isFinite(n)) throw new ReplyShapeError(script, `expected a number, got ${describe(reply)}`);
  return n;
}

export function str(reply: RawReply | undefined): string {
  return typeof reply === 'string' ? reply : reply == null ? '' : String(reply);
}

export function state(script: string, value: string): JobState {
  if ((JOB_STATES as readonly string[]).includes(value)) return value as JobState;
  throw new ReplyShapeError(script, `unknown job state "${value}"`);
}

export function optionalInt(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * The byte a finished lease's token ends with: the job hash keeps the token
 * it finished under, spent in place (lua/includes/finish.lua SPOOL_SPENT).
 */
export const SPENT_LEASE_MARK = '!';

/** The lease token a job hash holds, or undefined when it holds none or a spent one. */
export function liveToken(token: string | undefined): string | undefined {
  return token === undefined || token.endsWith(SPENT_LEASE_MARK) ? undefined : token;
}
