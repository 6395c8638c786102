import { ShardCountMismatchError } from '../../lib/index.js';
import { RedisCluster } from '../helpers/redis-cluster.mjs';
import { testStore, useClusterStores } from '../helpers/store.js';
// The sharded-queue specs again on a 3-master Redis Cluster (every harness
// store connects to it), and the placement: shards land on different masters.
import '../sharding/sharded-queue.spec.js';

let cluster: RedisCluster | undefined;
beforeAll(async () => {
  cluster = await RedisCluster.start({ replicasPerMaster: 0 });
  useClusterStores(() => cluster!.rootNodes);
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

describe('sharded queue placement on a Redis Cluster', () => {
  it('puts shard k on the k-th master (round-robin past the masters) and every process reads the same placement', async () => {
    const store = await testStore();
    const other = await testStore(undefined, store.prefix);
    try {
      const names = await store.placeShards('placed', 6);
      // Slots computed here with the test's own CRC16 (redis-cluster.mjs), owners read from CLUSTER NODES.
      const ports = await Promise.all(names.map(async (name) => (await cluster!.masterFor(`{${store.prefix}:${name}}`)).port));
      expect(new Set(ports.slice(0, 3)).size).toBe(3);
      expect(ports.slice(3)).toEqual(ports.slice(0, 3));
      const masters = (await cluster!.masters()).map((m) => m.port);
      expect([...ports.slice(0, 3)].sort()).toEqual([...masters].sort());
      expect(await other.placeShards('placed', 6)).toEqual(names);
      await expect(other.placeShards('placed', 4)).rejects.toBeInstanceOf(ShardCountMismatchError);
    } finally {
      await other.disconnect();
      await store.disconnect();
    }
  });
});
