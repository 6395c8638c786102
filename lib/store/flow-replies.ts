import type { AddFlowOutcome, ChildFailure, ChildRef, ChildrenRecord, DeliverOutcome } from './store.js';
import { CHILD_REF_SEPARATOR } from './keys.js';
import { ReplyShapeError } from './errors.js';
import { int, list, state, str, type RawReply } from './reply-values.js';

/** Flow replies and the child references parents keep (see lua/includes/flow). */

/** A flow child reference as stored in a parent's sets: "queue\nid". */
export function encodeChildRef(ref: ChildRef): string {
  return `${ref.queue}${CHILD_REF_SEPARATOR}${ref.id}`;
}

export function decodeChildRef(raw: string): ChildRef {
  const at = raw.indexOf(CHILD_REF_SEPARATOR);
  if (at < 0) throw new ReplyShapeError('flow', `malformed child reference "${raw}"`);
  return { queue: raw.slice(0, at), id: raw.slice(at + 1) };
}

export function decodeAddFlow(reply: RawReply, queue: string): AddFlowOutcome {
  const r = list('flow-add', reply);
  if (int('flow-add', r[0]) === 1) return { status: 'added', createdAt: int('flow-add', r[1]) };
  return { status: 'duplicate', queue, id: str(r[1]) };
}

export function decodeChildren(pending: string[], results: Record<string, string>, failures: Record<string, string>): ChildrenRecord {
  return {
    pending: pending.map(decodeChildRef),
    results: Object.entries(results).map(([ref, result]) => ({ child: decodeChildRef(ref), result })),
    failures: Object.entries(failures).map(([ref, json]) => ({ child: decodeChildRef(ref), failure: decodeFailure(json) })),
  };
}

function decodeFailure(json: string): ChildFailure {
  try {
    const f = JSON.parse(json) as Partial<ChildFailure>;
    return {
      state: f.state === 'cancelled' ? 'cancelled' : 'failed',
      reason: String(f.reason ?? ''),
      message: String(f.message ?? ''),
      policy: f.policy === 'continue' || f.policy === 'ignore' || f.policy === 'remove' ? f.policy : 'fail',
    };
  } catch {
    throw new ReplyShapeError('flow', `malformed child failure ${json}`);
  }
}

/** child-done: {1, parent state} when applied, {0, ...} when the parent was gone or had heard already. */
export function decodeChildDone(reply: RawReply): DeliverOutcome {
  const r = list('child-done', reply);
  if (int('child-done', r[0]) !== 1) return { parentState: null };
  const parent = str(r[1]);
  return { parentState: parent === 'removed' ? null : state('child-done', parent) };
}
