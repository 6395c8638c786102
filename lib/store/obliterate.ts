import type { RedisClientLike } from './redis-client.js';
import type { RawReply } from './reply-values.js';

/** Keys examined per SCAN step and deleted per UNLINK: each command stays short. */
const STEP = 1000;

/** A literal for a SCAN MATCH glob. */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/**
 * Deletes every key whose name starts with `head` (a queue's `{prefix:queue}:`
 * hash tag: every key of the queue carries it, lib/store/keys.ts), on the
 * node that serves the tag's slot, in SCAN steps with one UNLINK per step,
 * so no single command holds Redis for long. `last` (the meta hash, which
 * holds the pause that keeps workers away meanwhile) goes at the end.
 * Returns how many keys were deleted.
 */
export async function unlinkUnder(node: RedisClientLike, head: string, last: string): Promise<number> {
  const match = `${globLiteral(head)}*`;
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = (await node.sendCommand(['SCAN', cursor, 'MATCH', match, 'COUNT', String(STEP)])) as [RawReply, string[]];
    cursor = String(next);
    const doomed = keys.filter((key) => key !== last);
    if (doomed.length > 0) deleted += Number(await node.sendCommand(['UNLINK', ...doomed]));
  } while (cursor !== '0');
  return deleted + Number(await node.sendCommand(['UNLINK', last]));
}
