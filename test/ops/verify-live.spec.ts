import { Queue, type RedisStore } from '../../lib/index.js';
import type { RedisClientLike } from '../../lib/store/redis-client.js';
import { openDuplicate, readQuietly } from '../../lib/store/quiet-read.js';
import { verifyQueue, verifyWatchedKeys } from '../../lib/store/verify.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { testStore } from '../helpers/store.js';
import { redisOnly } from '../helpers/store-kind.js';

/**
 * verify() reads a queue in many commands; a worker that moves a job between
 * two of them must not turn into a reported problem (CI saw "meta n:send says
 * 1 waiting, the indexes hold 0" when a retried job was promoted mid-read).
 * A client that claims a job just before verify reads meta puts the move
 * exactly there.
 */
describe('verify() of a live queue', () => {
  let store: RedisStore;
  let queue: Queue;

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue('live', { store });
  });
  afterEach(async () => {
    await store.disconnect();
  });

  /** `client`, but the first `times` reads of meta are preceded by `move()`. */
  function movingBeforeMeta(client: RedisClientLike, times: number, move: () => Promise<unknown>): RedisClientLike {
    const meta = keysOf(store, 'live').meta;
    let left = times;
    return new Proxy(client, {
      get(target, property, receiver) {
        if (property !== 'sendCommand') return Reflect.get(target, property, receiver) as unknown;
        return async (args: readonly string[]) => {
          if (left > 0 && args[0] === 'HGETALL' && args[1] === meta) (left -= 1, await move());
          return target.sendCommand(args);
        };
      },
    });
  }

  const claimOne = () => store.claim('live', { count: 1, workerId: 'w', lockMs: 30_000 });
  const open = () => openDuplicate(commandOf(store), 'verify');

  redisOnly('drives verify\'s WATCHed Redis reads')('a move between its reads is not reported: the read is taken again', async () => {
    await queue.addBulk(Array.from({ length: 3 }, () => ({ name: 'send', data: {} })));
    const keys = keysOf(store, 'live');

    // The move alone, without the watch, is seen half done.
    const unwatched = await open();
    try {
      expect(await verifyQueue(movingBeforeMeta(unwatched, 1, claimOne), keys)).toEqual(['meta n:send says 2 waiting, the indexes hold 3']);
    } finally {
      await unwatched.close();
    }

    let reads = 0;
    const problems = await readQuietly(open, verifyWatchedKeys(keys), (client) => {
      reads += 1;
      return verifyQueue(movingBeforeMeta(client, reads === 1 ? 1 : 0, claimOne), keys);
    });
    expect(reads).toBe(2);
    expect(problems).toEqual([]);
    expect(await queue.verify()).toEqual([]);
    expect((await queue.getCounts()).active).toBe(2);
  });

  redisOnly('drives verify\'s WATCHed Redis reads')('a queue that keeps moving gets its last read after a bounded number of tries', async () => {
    await queue.addBulk(Array.from({ length: 20 }, () => ({ name: 'send', data: {} })));
    const keys = keysOf(store, 'live');
    let reads = 0;
    const problems = await readQuietly(open, verifyWatchedKeys(keys), (client) => {
      reads += 1;
      return verifyQueue(movingBeforeMeta(client, 1, claimOne), keys);
    });
    // 8 reads, or 3 and more when they took over 2 s in all (a loaded machine): the last one comes back.
    expect(reads).toBeGreaterThanOrEqual(3);
    expect(reads).toBeLessThanOrEqual(8);
    expect(problems).toEqual([`meta n:send says ${20 - reads} waiting, the indexes hold ${21 - reads}`]);
    expect(await queue.verify()).toEqual([]);
  });

  redisOnly('drives verify\'s WATCHed Redis reads')('reads a slow queue that keeps moving three times, more only while the reads took under 2 s', async () => {
    await queue.addBulk(Array.from({ length: 5 }, () => ({ name: 'send', data: {} })));
    let reads = 0;
    await readQuietly(open, verifyWatchedKeys(keysOf(store, 'live')), async () => {
      reads += 1;
      await claimOne();
      // A read of a big queue: 0.8 s each, so the budget is spent when the third ends.
      await new Promise((resolve) => setTimeout(resolve, 800));
    });
    expect(reads).toBe(3);
  });

  redisOnly('opens verify\'s duplicate Redis connection')('fails fast with RedisUnavailableError when the store is not connected', async () => {
    const other = await testStore();
    const command = commandOf(other);
    await other.disconnect();
    await expect(openDuplicate(command, 'verify')).rejects.toThrow(/verify: Redis is unreachable/);
  });
});

describe('verify() when Redis takes no new connection', () => {
  const server = usePrivateRedis();

  it('fails with RedisUnavailableError after the connect timeout instead of waiting for ever', async () => {
    const store = await testStore(server.url);
    const admin = commandOf(store);
    const info = String(await admin.sendCommand(['INFO', 'clients']));
    const connected = Number(/connected_clients:(\d+)/.exec(info)?.[1]);
    await admin.sendCommand(['CONFIG', 'SET', 'maxclients', String(connected)]);
    try {
      await expect(new Queue('full', { store }).verify()).rejects.toThrow(/verify: Redis is unreachable: no connection within 5000 ms/);
    } finally {
      await admin.sendCommand(['CONFIG', 'SET', 'maxclients', '10000']);
      await store.disconnect();
    }
  }, 15_000);
});
