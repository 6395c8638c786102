import { createClient, createCluster } from 'redis';
import { keySlot, RedisCluster } from '../helpers/redis-cluster.mjs';

// The cluster harness itself: 3 masters + 3 replicas on free ports, every slot
// served, every process stopped (kill, failover and restart: failover.spec.ts).
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

  it('stops every node by its pid', async () => {
    const spare = await RedisCluster.start({ masters: 3, replicasPerMaster: 0 });
    const pids = spare.nodes.map((n) => n.pid!);
    await spare.stop();
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  }, 60_000);
});
