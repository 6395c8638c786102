import { createClient, createCluster } from 'redis';
import { keySlot, RedisCluster } from '../helpers/redis-cluster.mjs';
import { waitFor } from '../helpers/wait-for.js';

// The cluster harness itself: 3 masters + 3 replicas on free ports, every slot
// served, a killed master replaced by its replica, every process stopped.
describe('test harness: local Redis Cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await RedisCluster.start();
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('starts 3 masters that cover all 16384 slots, each with a replica in sync', async () => {
    const rows = await cluster.topology();
    const masters = rows.filter((r) => r.flags.includes('master'));
    const replicas = rows.filter((r) => r.flags.includes('slave'));
    expect(masters).toHaveLength(3);
    expect(replicas).toHaveLength(3);
    const slots = masters.flatMap((m) => m.slots).reduce((sum, [from, to]) => sum + (to - from + 1), 0);
    expect(slots).toBe(16384);
    expect(new Set(replicas.map((r) => r.master))).toEqual(new Set(masters.map((m) => m.id)));
  });

  it('computes key slots as the server does and finds the master of a slot', async () => {
    const client = createCluster({ rootNodes: cluster.rootNodes });
    await client.connect();
    try {
      for (const key of ['plain', '{spool:emails}:wait', 'a{b}c', '{}x', 'x{}{y}']) {
        const slot = Number(await client.sendCommand(key, true, ['CLUSTER', 'KEYSLOT', key]));
        expect(keySlot(key)).toBe(slot);
      }
      const owner = await cluster.masterFor('{spool:emails}');
      await client.set('{spool:emails}:probe', 'here');
      const direct = createClient({ url: owner.url });
      await direct.connect();
      expect(await direct.get('{spool:emails}:probe')).toBe('here');
      await direct.close();
    } finally {
      await client.close();
    }
  });

  it('replaces a killed master with its replica; the cluster client goes on', async () => {
    const client = createCluster({ rootNodes: cluster.rootNodes });
    client.on('error', () => undefined);
    await client.connect();
    try {
      await client.set('{failover}:k', 'before');
      const old = await cluster.masterFor('{failover}');
      const pid = old.pid!;
      await cluster.kill(old);
      expect(old.running).toBe(false);
      expect(() => process.kill(pid, 0)).toThrow();
      const promoted = await cluster.waitForFailover(old, '{failover}');
      expect(promoted.port).not.toBe(old.port);
      // Commands in flight while the client rediscovers the slots may fail; it settles by itself.
      let value: string | null | undefined;
      await waitFor(
        async () => {
          value = await client.get('{failover}:k').catch(() => undefined);
          return value !== undefined;
        },
        { timeout: 10_000, interval: 100, message: 'the cluster client to read from the promoted master' },
      );
      expect(value).toBe('before');
      await cluster.restart(old);
      const rows = await cluster.topology();
      expect(rows.find((r) => r.port === old.port)?.flags).toContain('slave');
    } finally {
      await client.close();
    }
  }, 60_000);

  it('stops every node by its pid', async () => {
    const spare = await RedisCluster.start({ masters: 3, replicasPerMaster: 0 });
    const pids = spare.nodes.map((n) => n.pid!);
    await spare.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
