import type { RedisClientLike } from './redis-client.js';

/**
 * A flow is written queue by queue (hash tags), so a producer that dies
 * between writing the parts and committing them would leave the tree held in
 * waiting-children forever. Each part therefore records an intent in its
 * queue (flow-add), dropped when the part is committed (flow-commit). The
 * fate of the whole flow is one decision key, in the root's queue, that the
 * first writer wins (SET NX): the producer writes `release` once every part
 * is in; a sweep that finds an intent older than the grace writes `discard`.
 * Whichever won, every part follows it, so a tree is never half released:
 * a producer slower than the grace sees `discard` and reports its add failed.
 */
export interface FlowIntent {
  /** When the producer started writing (its clock; only the grace depends on it). */
  readonly at: number;
  /** The queue that holds the flow's decision key (the root's). */
  readonly dq: string;
  /** The flow's node ids in this queue. */
  readonly ids: readonly string[];
}

export type FlowDecision = 'release' | 'discard';

/** How old an uncommitted part must be before a sweep settles it: far beyond any live add. */
export const FLOW_SWEEP_GRACE_MS = 30_000;
/** The decision outlives every part's commit; it is deleted after a clean add. */
const DECISION_TTL_MS = 86_400_000;

export function encodeIntent(intent: FlowIntent): string {
  return JSON.stringify(intent);
}

/** The stored intent, or null when it is not one (then it is dropped: nothing can act on it). */
export function decodeIntent(raw: string): FlowIntent | null {
  try {
    const value = JSON.parse(raw) as Partial<FlowIntent>;
    if (typeof value.at !== 'number' || typeof value.dq !== 'string' || !Array.isArray(value.ids)) return null;
    if (!value.ids.every((id) => typeof id === 'string')) return null;
    return { at: value.at, dq: value.dq, ids: value.ids };
  } catch {
    return null;
  }
}

/** Proposes a decision; returns the one that holds (the first ever written for this flow). */
export async function decideFlow(client: RedisClientLike, key: string, wanted: FlowDecision): Promise<FlowDecision> {
  const prior = (await client.sendCommand(['SET', key, wanted, 'NX', 'GET', 'PX', String(DECISION_TTL_MS)])) as string | null;
  return prior === 'release' || prior === 'discard' ? prior : wanted;
}
