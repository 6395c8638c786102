import { createCluster, type RedisClusterType } from 'redis';
import { CommandTimeoutError, Queue, RedisStore, ReplicationTimeoutError } from '../../lib/index.js';
import { ClusterClient } from '../../lib/store/cluster-client.js';
import { keySlot, RedisCluster } from '../helpers/redis-cluster.mjs';
import type { RedisServer } from '../helpers/redis-server.mjs';
import { silentLogger, uniquePrefix } from '../helpers/store.js';

// Partitions on a local Redis Cluster (3 masters, a replica each): a master
// that stops answering (SIGSTOP), WAIT after a write whose slot moved, an
// ASK-redirected write, and verify() after failovers.

/** A queue name of `prefix` whose slot lives on `master` (or, with `not`, on another master). */
async function queueOn(cluster: RedisCluster, prefix: string, master: RedisServer, not = false): Promise<string> {
  for (let i = 0; ; i++) {
    const name = `q${i}`;
    if (((await cluster.masterFor(`{${prefix}:${name}}`)) === master) !== not) return name;
  }
}

/** The replica (RedisServer) of `master`. */
async function replicaOf(cluster: RedisCluster, master: RedisServer): Promise<RedisServer> {
  const rows = await cluster.topology();
  const id = rows.find((r) => r.port === master.port)!.id;
  return cluster.node(rows.find((r) => r.master === id)!.port);
}

describe('Redis Cluster: a master that stops answering, and WAIT on the node that ran the write', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    // A long node timeout: a master stopped for a few seconds is not failed over meanwhile.
    cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1, nodeTimeout: 30_000 });
  }, 60_000);
  afterAll(async () => {
    for (const node of cluster?.nodes ?? []) node.resume();
    await cluster?.stop();
  });

  it('add() to the silent master rejects within about commandTimeoutMs; a queue on another master goes on meanwhile', async () => {
    const prefix = uniquePrefix('stop');
    const [silent] = await cluster.masters();
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: silentLogger, commandTimeoutMs: 500 });
    await store.connect();
    const stopped = new Queue(await queueOn(cluster, prefix, silent!), { store });
    const other = new Queue(await queueOn(cluster, prefix, silent!, true), { store });
    try {
      await stopped.add('x', 1, { jobId: 'before' });
      silent!.pause();
      const started = performance.now();
      const hung = new Promise((resolve) => setTimeout(() => resolve('hung'), 5000).unref());
      const adding = stopped.add('x', 2, { jobId: 'during' }).then(() => 'resolved', (err: unknown) => err);
      // Each node is timed by its own silence: the other master answers at once.
      expect((await other.add('x', 3, { jobId: 'elsewhere' })).id).toBe('elsewhere');
      const error = await Promise.race([adding, hung]);
      const took = performance.now() - started;
      silent!.resume();
      expect(error).toBeInstanceOf(CommandTimeoutError);
      expect((error as Error).message).toMatch(/^script add: Redis gave no reply within 500 ms/);
      expect(took).toBeGreaterThanOrEqual(480);
      expect(took).toBeLessThan(2000);
      expect((await stopped.add('x', 2, { jobId: 'during' })).id).toBe('during');
      expect(await stopped.getCounts()).toMatchObject({ waiting: 2 });
      expect(await stopped.verify()).toEqual([]);
    } finally {
      silent!.resume();
      await store.disconnect();
    }
  });

  it("durability 'replicated': WAIT goes to the node that ran the add, not to the key's master after the slot moved; not confirmed there, the add is refused", async () => {
    const prefix = uniquePrefix('moved');
    const [from, to] = await cluster.masters();
    const name = await queueOn(cluster, prefix, from!);
    const key = `{${prefix}:${name}}`;
    const cc = createCluster({ rootNodes: cluster.rootNodes, commandOptions: { timeout: 0 } }) as RedisClusterType;
    await cc.connect();
    const store = new RedisStore({ client: cc, prefix, durability: 'replicated', replicationTimeoutMs: 500, logger: silentLogger });
    await store.connect();
    const queue = new Queue(name, { store });
    const replica = await replicaOf(cluster, from!);
    const waits: number[] = [];
    let moveAfterScript = false;
    // The node clients of both masters: record where each WAIT goes; after the armed script's reply, move the slot
    // (keys MIGRATEd to `to`, then the slot assigned) and let the client learn it (a MOVED refreshes its map).
    for (const master of [from!, to!]) {
      const node = cc.masters.find((m) => m.port === master.port)!;
      const client = (await cc.nodeClient(node)) as unknown as { sendCommand(args: string[], options?: object): Promise<unknown> };
      const send = client.sendCommand.bind(client);
      client.sendCommand = async (args, options) => {
        if (args[0] === 'WAIT') waits.push(master.port);
        const reply = await send(args, options);
        if (moveAfterScript && master === from && /^EVAL/.test(args[0]!)) {
          moveAfterScript = false;
          await cluster.moveSlot(key, to!);
          await cc.sendCommand(key, true, ['EXISTS', key]);
        }
        return reply;
      };
    }
    try {
      await queue.add('x', 1, { jobId: 'confirmed' });
      expect(waits).toEqual([from!.port]);
      waits.length = 0;
      replica.pause();
      moveAfterScript = true;
      const error = await queue.add('x', 2, { jobId: 'moved' }).then(() => 'acknowledged', (err: unknown) => err);
      replica.resume();
      expect(moveAfterScript).toBe(false);
      // The write went over `from`'s connection, whose replica heard nothing: only WAIT there says so.
      expect(waits).toEqual([from!.port]);
      expect(error).toBeInstanceOf(ReplicationTimeoutError);
      expect(error).toMatchObject({ demoted: false, permanent: false });
      expect((await cluster.masterFor(key)).port).toBe(to!.port);
    } finally {
      replica.resume();
      await store.disconnect();
      await cc.close();
    }
  });

  it('a write an ASK redirect runs on the importing node is confirmed (or not) by that node', async () => {
    const prefix = uniquePrefix('ask');
    const [from, to] = await cluster.masters();
    const key = `{${prefix}:${await queueOn(cluster, prefix, from!)}}:k`;
    const slot = String(keySlot(key));
    const cc = createCluster({ rootNodes: cluster.rootNodes, commandOptions: { timeout: 0 } }) as RedisClusterType;
    await cc.connect();
    const client = new ClusterClient(cc);
    const rows = await cluster.topology();
    const idOf = (node: RedisServer) => rows.find((r) => r.port === node.port)!.id;
    const admin = async (node: RedisServer, args: string[]) => (await cc.nodeClient(cc.masters.find((m) => m.port === node.port)!)).sendCommand(args);
    const replica = await replicaOf(cluster, to!);
    try {
      // The slot half moved: `to` imports it, `from` (which holds none of its keys) answers ASK.
      await admin(to!, ['CLUSTER', 'SETSLOT', slot, 'IMPORTING', idOf(from!)]);
      await admin(from!, ['CLUSTER', 'SETSLOT', slot, 'MIGRATING', idOf(to!)]);
      replica.pause();
      const served = await client.sendServed(['EVAL', "return redis.call('SET', KEYS[1], ARGV[1])", '1', key, 'v']);
      expect(served.reply).toBe('OK');
      expect(await served.connection.sendCommand(['CLUSTER', 'MYID'])).toBe(idOf(to!));
      // WAIT there counts the write: `to`'s replica is stopped, so none confirms it...
      expect(await served.connection.sendCommand(['WAIT', '1', '300'])).toBe(0);
      // ...while the key's master in the slot map, which never saw the write, would have answered at once.
      const mapped = await client.clientFor(key);
      expect(await mapped.sendCommand(['CLUSTER', 'MYID'])).toBe(idOf(from!));
      expect(await mapped.sendCommand(['WAIT', '1', '300'])).toBe(1);
    } finally {
      replica.resume();
      await admin(to!, ['ASKING']).then(() => admin(to!, ['DEL', key])).catch(() => undefined);
      await admin(to!, ['CLUSTER', 'SETSLOT', slot, 'STABLE']);
      await admin(from!, ['CLUSTER', 'SETSLOT', slot, 'STABLE']);
      await cc.close();
    }
  });
});

describe('Redis Cluster: verify() after failovers', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1, nodeTimeout: 1000 });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('reads a big queue on the master that serves it now, as the store finds it (before: "verify: Redis is unreachable")', async () => {
    const prefix = uniquePrefix('verify');
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: silentLogger });
    await store.connect();
    const queue = new Queue('big', { store });
    const key = `{${prefix}:big}`;
    try {
      // Big enough that its reads, queued at once on one connection, take longer than node-redis's 5 s write timeout here.
      for (let i = 0; i < 150; i++) await queue.addBulk(Array.from({ length: 1000 }, (_, j) => ({ name: 'x', data: { i, j } })));
      // Three failovers of the queue's master, each old master back as a replica.
      for (let round = 0; round < 3; round++) {
        const master = await cluster.masterFor(key);
        await cluster.kill(master);
        await cluster.waitForFailover(master, key);
        await cluster.restart(master);
      }
      // The store finds the queue as before: adds retried until the new master takes them.
      for (;;) {
        const added = await queue.add('x', { last: true }, { jobId: 'after' }).then(() => true, () => false);
        if (added) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const counts = await queue.getCounts();
      expect(await queue.verify()).toEqual([]);
      expect(counts.waiting).toBeGreaterThan(0);
    } finally {
      await store.disconnect();
    }
  }, 180_000);
});
