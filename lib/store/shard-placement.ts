import { ClusterClient } from './cluster-client.js';
import type { RedisClientLike } from './redis-client.js';
import { queueKeys } from './keys.js';
import { StoreError } from './store.js';

/**
 * Where the shards of a sharded queue live (Queue option `shards`): the
 * physical queue names, chosen once and kept in Redis, so every process of
 * the queue agrees on them whatever its own view of the cluster.
 *
 * On a Redis Cluster the names are picked so that their hash tags fall in
 * slots of different masters, shard k on the k-th master (masters ordered
 * by their first slot), round-robin when there are more shards than
 * masters: spreading load is the point of sharding. Slots are asked of
 * Redis itself (CLUSTER KEYSLOT), so there is no second CRC16 to keep in
 * step. After a resharding the names stay (jobs stay where they are); the
 * shards simply follow their slots to whichever master now owns them.
 */

/**
 * The queue is sharded over another number of shards than the caller's `shards`.
 *
 * Do: pass `shards: stored` to every Queue, Worker and QueueEvents of the
 * queue; the count is fixed when a queue is first sharded.
 */
export class ShardCountMismatchError extends StoreError {
  constructor(readonly queue: string, readonly stored: number, readonly wanted: number) {
    super(
      `queue "${queue}" is sharded over ${stored} shards, not ${wanted}: pass shards: ${stored} to every Queue, Worker and QueueEvents of it ` +
        '(the shard count is fixed when a queue is first sharded)',
      true,
    );
    this.name = 'ShardCountMismatchError';
  }
}

/** Candidate names tried per shard and round: one KEYSLOT each, sent together. */
const CANDIDATES = 64;

/** The key holding a sharded queue's placement: in the logical queue's own slot. */
export function shardMapKey(prefix: string, queue: string): string {
  return `${queueKeys(prefix, queue).meta}:shards`;
}

/** The name of shard `k`; `salt` moves its hash tag to another slot. */
export function shardName(queue: string, k: number, salt: number): string {
  return salt === 0 ? `${queue}~${k}` : `${queue}~${k}.${salt}`;
}

/**
 * The shard names of `queue`: the stored ones, or (first use) a new
 * placement written with SET NX, so racing processes all end with the one
 * that won.
 */
export async function placeShards(client: RedisClientLike, prefix: string, queue: string, count: number): Promise<readonly string[]> {
  const key = shardMapKey(prefix, queue);
  const stored = await readPlacement(client, key);
  if (stored) return checked(queue, stored, count);
  const names = client instanceof ClusterClient ? await spreadOverMasters(client, prefix, queue, count) : range(count).map((k) => shardName(queue, k, 0));
  await client.sendCommand(['SET', key, JSON.stringify(names), 'NX']);
  const winner = await readPlacement(client, key);
  if (!winner) throw new StoreError(`the shard placement of queue "${queue}" vanished right after it was written`, false);
  return checked(queue, winner, count);
}

/** The stored shard names of `queue`, or null when it was never sharded (nothing is written). */
export function readShardNames(client: RedisClientLike, prefix: string, queue: string): Promise<string[] | null> {
  return readPlacement(client, shardMapKey(prefix, queue));
}

/** A placement's value as stored (a JSON list of queue names), or null when it is not one. */
export function parsePlacement(raw: unknown): string[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(raw));
  } catch {
    return null;
  }
  return Array.isArray(parsed) && parsed.length > 0 && parsed.every((n): n is string => typeof n === 'string') ? parsed : null;
}

async function readPlacement(client: RedisClientLike, key: string): Promise<string[] | null> {
  const raw = await client.sendCommand(['GET', key]);
  if (raw === null || raw === undefined) return null;
  const names = parsePlacement(raw);
  if (!names) throw new StoreError(`the shard placement at ${key} is not a list of queue names: ${String(raw)}`, true);
  return names;
}

function checked(queue: string, names: readonly string[], count: number): readonly string[] {
  if (names.length !== count) throw new ShardCountMismatchError(queue, names.length, count);
  return names;
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Slot ranges per master, masters ordered by their first slot. */
async function masterRanges(client: ClusterClient): Promise<(readonly [number, number])[][]> {
  const reply = (await client.sendCommand(['CLUSTER', 'SLOTS'])) as unknown[];
  const byMaster = new Map<string, (readonly [number, number])[]>();
  for (const entry of reply) {
    const [start, end, master] = entry as [number, number, unknown[]];
    const id = `${String(master[0])}:${String(master[1])}`;
    const ranges = byMaster.get(id) ?? [];
    ranges.push([Number(start), Number(end)]);
    byMaster.set(id, ranges);
  }
  const first = (ranges: readonly (readonly [number, number])[]): number => Math.min(...ranges.map((r) => r[0]));
  return [...byMaster.values()].sort((a, b) => first(a) - first(b));
}

async function spreadOverMasters(client: ClusterClient, prefix: string, queue: string, count: number): Promise<string[]> {
  const masters = await masterRanges(client);
  if (masters.length === 0) throw new StoreError('CLUSTER SLOTS lists no master: is every slot assigned?', false);
  const owns = (ranges: readonly (readonly [number, number])[], slot: number): boolean => ranges.some(([a, b]) => slot >= a && slot <= b);
  return Promise.all(
    range(count).map(async (k) => {
      const ranges = masters[k % masters.length]!;
      for (let round = 0; round < 16; round++) {
        const salts = range(CANDIDATES).map((i) => round * CANDIDATES + i);
        const slots = await Promise.all(salts.map((salt) => client.sendCommand(['CLUSTER', 'KEYSLOT', `{${prefix}:${shardName(queue, k, salt)}}`])));
        const hit = slots.findIndex((slot) => owns(ranges, Number(slot)));
        if (hit !== -1) return shardName(queue, k, salts[hit]!);
      }
      throw new StoreError(`found no name for shard ${k} of queue "${queue}" on its master in ${16 * CANDIDATES} tries`, false);
    }),
  );
}
