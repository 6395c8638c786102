import type {
  AddBatchOutcome,
  AddOutcome,
  ClaimOutcome,
  CancelOutcome,
  CompleteOutcome,
  CompleteManyOutcome,
  CompletionStatus,
  ExtendOutcome,
  FailOutcome,
  JobCounts,
  JobRecord,
  JobState,
  PromoteOutcome,
  ReapOutcome,
  ReleaseOutcome,
  RedriveOutcome,
  RemoveOutcome,
} from './store.js';
import { ReplyShapeError } from './errors.js';
import { decodeChildRef } from './flow-replies.js';
import { int, list, liveToken, optionalInt, state, str, type RawReply } from './reply-values.js';

/** Decoders of the scripts' replies into the Store's outcomes (flows: flow-replies.ts; limits: limit-replies.ts). */

/** A hash reply as a record: a flat list (field, value, ...) from Lua or RESP2, or a RESP3 map. */
export function decodeHash(reply: RawReply | undefined, offset = 0): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(reply)) {
    for (let i = offset; i + 1 < reply.length; i += 2) out[str(reply[i])] = str(reply[i + 1]);
  } else if (reply instanceof Map) {
    for (const [field, value] of reply as Map<unknown, RawReply>) out[String(field)] = str(value);
  } else if (reply && typeof reply === 'object') {
    for (const [field, value] of Object.entries(reply)) out[field] = str(value);
  }
  return out;
}

/**
 * A job hash as a typed record. Missing numbers read as 0, so a damaged hash
 * still decodes; an unknown state is a ReplyShapeError, never a guess.
 */
export function decodeJob(id: string, h: Record<string, string>): JobRecord {
  const deadline = optionalInt(h.deadline);
  const createdAt = optionalInt(h.createdAt);
  return {
    id,
    name: h.name ?? '',
    data: h.data ?? 'null',
    opts: h.opts ?? '{}',
    state: state('job hash', h.state ?? ''),
    attempt: optionalInt(h.attempt) ?? 0,
    maxAttempts: optionalInt(h.maxAttempts) ?? 1,
    createdAt: createdAt ?? 0,
    // add.lua writes no runAt while it equals createdAt (compact job hash).
    runAt: optionalInt(h.runAt) ?? createdAt,
    startedAt: optionalInt(h.startedAt),
    finishedAt: optionalInt(h.finishedAt),
    deadline: deadline && deadline > 0 ? deadline : undefined,
    priority: optionalInt(h.priority) ?? 0,
    lifo: h.lifo === '1',
    stalled: optionalInt(h.stalled) ?? 0,
    progress: h.progress,
    result: h.result,
    error: h.error === undefined ? undefined : { message: h.error, stack: h.stack ?? '', code: h.code ?? '' },
    reason: h.reason,
    token: liveToken(h.token),
    group: h.group,
    cancelRequested: h.cancel === '1',
    ...(h.pq !== undefined && h.pid !== undefined && { parent: { queue: h.pq, id: h.pid } }),
    ...(h.tc !== undefined && { traceContext: h.tc }),
  };
}

/** add: {createdAt, entry per job} (see lua/add.lua), or {-1, limit, group} when refused; `ids` are the ids sent, in order. */
export function decodeAdd(reply: RawReply, ids: readonly string[]): AddBatchOutcome {
  const entries = list('add', reply);
  if (entries[0] === -1) {
    const group = str(entries[2]);
    return { status: 'full', limit: int('add', entries[1]), ...(group !== '' && { group }) };
  }
  if (entries.length !== ids.length + 1) throw new ReplyShapeError('add', `expected ${ids.length} job entries, got ${entries.length - 1}`);
  const createdAt = int('add', entries[0]);
  const jobs: AddOutcome[] = new Array<AddOutcome>(ids.length);
  for (let i = 0; i < ids.length; i++) jobs[i] = decodeAdded(entries[i + 1]!, ids[i]!, createdAt);
  return { status: 'added', jobs };
}

function decodeAdded(entry: RawReply, id: string, createdAt: number): AddOutcome {
  if (entry === 0) return { created: true, id, state: 'waiting', createdAt, runAt: createdAt };
  if (typeof entry === 'number') return { created: true, id, state: 'delayed', createdAt, runAt: entry };
  const e = list('add', entry);
  // {id, -1}: its numbered id is taken and it asked to be told (NewJob.reportTaken); nothing was written.
  if (e.length === 2 && e[1] === -1) return { created: false, id: str(e[0]), existing: null, taken: true };
  // Two entries: created under a new id, its numbered one being taken (lua/includes/ids).
  if (e.length === 2) return decodeAdded(e[1]!, str(e[0]), createdAt);
  const known = str(e[0]);
  return { created: false, id: known, existing: e.length > 1 ? decodeJob(known, decodeHash(e, 1)) : null };
}

/** Job hashes returned by claim-like scripts; each carries its id in an `id` field (claim-batch adds it to compact hashes). */
export function decodeClaimed(script: string, replies: readonly RawReply[]): JobRecord[] {
  return replies.map((r) => {
    const h = decodeHash(list(script, r));
    return decodeJob(h.id ?? '', h);
  });
}

export function decodeClaim(reply: RawReply): ClaimOutcome {
  const r = list('claim', reply);
  return { waitMs: int('claim', r[0]), jobs: decodeClaimed('claim', r.slice(1)) };
}

const COMPLETED: CompletionStatus = { status: 'completed' };
const CANCELLED: CompletionStatus = { status: 'cancelled' };
const LOST: CompletionStatus = { status: 'lost' };

/** complete: {waitMs, n, code, state per job, next job hashes...}. */
export function decodeComplete(reply: RawReply): CompleteManyOutcome {
  const r = list('complete', reply);
  const n = int('complete', r[1]);
  const statuses: CompletionStatus[] = [];
  for (let i = 0; i < n; i++) {
    const code = int('complete', r[2 + 2 * i]);
    if (code === 1) statuses.push(COMPLETED);
    else if (code === 3) statuses.push(CANCELLED);
    else if (code === 2) statuses.push({ status: 'already', state: state('complete', str(r[3 + 2 * i])) });
    else statuses.push(LOST);
  }
  return { statuses, next: decodeClaimed('complete', r.slice(2 + 2 * n)), waitMs: int('complete', r[0]) };
}

/** complete() of one job: its status with the claim's outcome. */
export function singleCompletion(outcome: CompleteManyOutcome): CompleteOutcome {
  const s = outcome.statuses[0] ?? LOST;
  const { next, waitMs } = outcome;
  if (s.status === 'completed' || s.status === 'cancelled') return { status: s.status, next, waitMs };
  if (s.status === 'already') return { status: 'already', state: s.state, next };
  return { status: 'lost', next };
}

export function decodeFail(reply: RawReply): FailOutcome {
  const r = list('fail', reply);
  const code = int('fail', r[0]);
  if (code === -1) return { status: 'lost' };
  return { status: code === 2 ? 'already' : 'moved', state: state('fail', str(r[1])), runAt: int('fail', r[2]) };
}

export function decodeExtend(reply: RawReply): ExtendOutcome[] {
  return list('extend', reply).map((c) => {
    const code = int('extend', c);
    return code === 1 ? 'renewed' : code === 2 ? 'cancel-requested' : 'lost';
  });
}

export function decodeRelease(reply: RawReply): ReleaseOutcome {
  const code = int('release', reply);
  return code === 1 ? 'released' : code === 2 ? 'cancelled' : 'lost';
}

export function decodePromote(reply: RawReply): PromoteOutcome {
  const r = list('promote', reply);
  const next = int('promote', r[1]);
  const refill = Array.isArray(r[2]) ? r[2].map(str) : [];
  return { moved: int('promote', r[0]), nextDueIn: next < 0 ? null : next, ...(refill.length > 0 && { refill }) };
}

export function decodeReap(reply: RawReply): ReapOutcome[] {
  const r = list('reap', reply);
  const out: ReapOutcome[] = [];
  for (let i = 0; i + 1 < r.length; i += 2) out.push({ id: str(r[i]), state: state('reap', str(r[i + 1])) });
  return out;
}

export function decodeCancel(reply: RawReply): CancelOutcome {
  const r = list('cancel', reply);
  const children = r.slice(2).map((ref) => decodeChildRef(str(ref)));
  switch (int('cancel', r[0])) {
    case 1:
      return { status: 'cancelled', children };
    case 2:
      return { status: 'requested', children };
    case 3:
      return { status: 'finished', state: state('cancel', str(r[1])), children };
    default:
      return { status: 'unknown', children };
  }
}

export function decodeRedrive(reply: RawReply): RedriveOutcome {
  const r = list('redrive', reply);
  const code = int('redrive', r[0]);
  if (code === 0) return { status: 'unknown' };
  return { status: code === 1 ? 'redriven' : 'not-failed', state: state('redrive', str(r[1])) };
}

export function decodeRemove(reply: RawReply): RemoveOutcome {
  const r = list('remove', reply);
  switch (int('remove', r[0])) {
    case 1:
      return { status: 'removed' };
    case 2:
      return { status: 'not-finished', state: state('remove', str(r[1])) };
    case 3:
      return { status: 'children-pending', pending: int('remove', r[2]) };
    default:
      return { status: 'unknown' };
  }
}

/** A script that answers 1 when it changed something (pause, resume, progress...). */
export function decodeFlag(script: string, reply: RawReply): boolean {
  return int(script, reply) === 1;
}

/** A script that answers a count (pause-names, resume-names, flow-commit). */
export function decodeCount(script: string, reply: RawReply): number {
  return int(script, reply);
}

/** log: the lines kept, or null when the lease is lost (-1). */
export function decodeLog(reply: RawReply): number | null {
  const kept = int('log', reply);
  return kept < 0 ? null : kept;
}

/** watch: the job's state, null (false in Lua) when there is no such job. */
export function decodeWatch(reply: RawReply): JobState | null {
  return reply == null ? null : state('watch', str(reply));
}

const COUNTED = ['waiting', 'paused', 'delayed', 'active', 'completed', 'failed', 'cancelled', 'waiting-children'] as const;

/** counts: one number per state, in the order of COUNTED. */
export function decodeCounts(reply: RawReply): JobCounts {
  const r = list('counts', reply);
  if (r.length !== COUNTED.length) throw new ReplyShapeError('counts', `expected ${COUNTED.length} counts, got ${r.length}`);
  const out: Record<string, number> = {};
  COUNTED.forEach((name, i) => (out[name] = int('counts', r[i])));
  return out as JobCounts;
}

/** A list of strings (LRANGE, SMEMBERS, ZRANGE). */
export function decodeStrings(what: string, reply: RawReply): string[] {
  return list(what, reply).map((v) => str(v));
}
