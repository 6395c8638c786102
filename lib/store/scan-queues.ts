import { masterClients } from './cluster-client.js';
import { mappingUnavailable, type RedisClientLike } from './redis-client.js';
import { parsePlacement } from './shard-placement.js';

/** Keys examined per SCAN call: each call stays short on a large keyspace. */
const SCAN_COUNT = 1000;

/** A literal for a SCAN MATCH glob: `*`, `?`, `[`, `]` and `\` escaped. */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

async function scan(client: RedisClientLike, match: string, type: string, found: (key: string) => void): Promise<void> {
  let cursor = '0';
  do {
    const reply = (await client.sendCommand(['SCAN', cursor, 'MATCH', match, 'COUNT', String(SCAN_COUNT), 'TYPE', type])) as [string, string[]];
    cursor = String(reply[0]);
    for (const key of reply[1]) found(key);
  } while (cursor !== '0');
}

/**
 * The names of the queues under `prefix`. A queue exists while one of its
 * sorted sets does (every job sits in one: a state index, a group's or a
 * paused name's waiting set; or in the fifo list, whose jobs drew their
 * sequence numbers from meta) or its meta hash does (settings, pause, counters):
 * two SCANs, for sorted sets and for meta hashes of the `{prefix:…}` tag, so
 * job hashes are never sent back. A sharded queue is listed once, by its
 * own name: a third SCAN finds the shard placements (`…:meta:shards`,
 * lib/store/shard-placement.ts), whose shards are folded into it. SCAN
 * walks the whole keyspace in short steps: an operator's call (CLI,
 * dashboard), never one for a hot path. On a cluster it walks every master
 * (each holds the queues of its slots).
 */
export async function scanQueueNames(client: RedisClientLike, prefix: string): Promise<string[]> {
  const head = `{${prefix}:`;
  const names = new Set<string>();
  const placements: string[] = [];
  const nameOf = (key: string): string | undefined => {
    // The tag ends at the first '}': a queue name holds no brace.
    const end = key.indexOf('}', head.length);
    return key.startsWith(head) && end > head.length ? key.slice(head.length, end) : undefined;
  };
  const found = (key: string): void => {
    const name = nameOf(key);
    if (name !== undefined) names.add(name);
  };
  const shardNames = new Set<string>();
  for (const master of await masterClients(client)) {
    const node = mappingUnavailable(master, 'listQueues');
    await scan(node, `${globLiteral(head)}*}:*`, 'zset', found);
    await scan(node, `${globLiteral(head)}*}:meta`, 'hash', found);
    await scan(node, `${globLiteral(head)}*}:meta:shards`, 'string', (key) => placements.push(key));
    for (const key of placements.splice(0)) {
      // Read on the master that holds it. A value that is not a placement folds nothing.
      const shards = parsePlacement(await node.sendCommand(['GET', key]));
      const queue = nameOf(key);
      if (!shards || queue === undefined) continue;
      names.add(queue);
      for (const shard of shards) shardNames.add(shard);
    }
  }
  return [...names].filter((name) => !shardNames.has(name)).sort();
}
