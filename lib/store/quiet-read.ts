import { ErrorReply } from 'redis';
import { sendServed } from './cluster-client.js';
import { CommandTimeoutError, RedisUnavailableError } from './errors.js';
import { mappingUnavailable, type RedisClientLike } from './redis-client.js';
import { boundedClient, type ReplyClock } from './reply-clock.js';

/** How many reads at most when the queue keeps changing under them; the last one is returned as it is. */
const ATTEMPTS = 8;
/** Reads taken whatever the time they take: a loaded machine still gets a consistent read. */
const MIN_ATTEMPTS = 3;
/** No read past MIN_ATTEMPTS is started once the reads took this long: a big busy queue gets three, not eight slow ones. */
const RETRY_BUDGET_MS = 2000;

/**
 * Runs a read of many commands (verify() reads indexes, then hashes, then
 * counters) as one snapshot of a live queue. Between two of its commands a
 * worker may promote or claim a job, and the read would then see the job's
 * hash in one state and the counters in the next: a problem that is not one.
 * So the read runs on a connection of its own that first WATCHes the keys
 * every job move writes, and ends with an empty MULTI/EXEC, which Redis
 * answers with nil when one of them was written meanwhile; the read is then
 * taken again (after a short pause that lets a burst pass), up to ATTEMPTS
 * times, and past MIN_ATTEMPTS only while the reads took less than
 * RETRY_BUDGET_MS. A queue that never stays still that long gets the last
 * read, as a read without the check would.
 * The connection is its own because WATCH and MULTI belong to a connection:
 * on the shared one, a script of another caller would run inside the MULTI.
 */
export async function readQuietly<T>(
  open: () => Promise<RedisClientLike>,
  watched: readonly string[],
  read: (client: RedisClientLike) => Promise<T>,
): Promise<T> {
  const client = await open();
  const started = performance.now();
  try {
    for (let attempt = 1; ; attempt++) {
      await client.sendCommand(['WATCH', ...watched]);
      const result = await read(client);
      await client.sendCommand(['MULTI']);
      if ((await client.sendCommand(['EXEC'])) !== null || attempt === ATTEMPTS) return result;
      if (attempt >= MIN_ATTEMPTS && performance.now() - started > RETRY_BUDGET_MS) return result;
      await new Promise((resolve) => setTimeout(resolve, 5 * attempt));
    }
  } finally {
    await client.close().catch(() => client.destroy());
  }
}

/** How long openDuplicate() waits for its connection. */
const CONNECT_TIMEOUT_MS = 5000;

/**
 * A connected duplicate of `base` for readQuietly(), failing with
 * RedisUnavailableError when `base` is not connected or the duplicate does
 * not connect within CONNECT_TIMEOUT_MS (it would wait for Redis for ever:
 * Spool's clients reconnect without end).
 */
export async function openDuplicate(base: RedisClientLike, what: string): Promise<RedisClientLike> {
  if (!base.isReady) throw new RedisUnavailableError(what, new Error('the command connection is not ready'));
  const client = base.duplicate();
  // Errors of this short-lived connection surface through its commands; unheard, node-redis would throw them.
  client.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailableError(what, new Error(`no connection within ${CONNECT_TIMEOUT_MS} ms`))), CONNECT_TIMEOUT_MS);
  });
  try {
    await Promise.race([client.connect(), timeout]);
  } catch (err) {
    client.destroy();
    throw err;
  } finally {
    clearTimeout(timer);
  }
  return client;
}

/**
 * readQuietly()'s connection for the keys of `key`'s slot: a duplicate of the
 * node that serves it, found as every command of the store finds it (one
 * EXISTS routed like a script: MOVED and ASK followed, the slot map refreshed
 * after failovers, a restarted node reconnected), its commands bounded by
 * the store's clock and without node-redis's write timeout (a node client of
 * a cluster has one by default, which failed the reads of a big queue's
 * verify() as "Redis is unreachable").
 */
export async function openReaderFor(command: RedisClientLike, key: string, clock: ReplyClock, what: string): Promise<RedisClientLike> {
  let node: RedisClientLike;
  try {
    node = (await sendServed(command, ['EXISTS', key])).connection;
  } catch (err) {
    if (err instanceof ErrorReply) throw err;
    if (err instanceof CommandTimeoutError) throw err.about(what);
    throw new RedisUnavailableError(what, err);
  }
  return mappingUnavailable(boundedClient(await openDuplicate(node, what), clock), what);
}

/** A reply meaning the slot moved while a read of many commands ran on one node: the read is taken again where it went. */
export function slotMoved(err: unknown): boolean {
  return err instanceof ErrorReply && /^(MOVED|ASK)\b/.test(err.message);
}
