import { RedisCluster } from './redis-cluster.mjs';
import { useClusterStores } from './store.js';

/**
 * A 3-master Redis Cluster (no replicas) for the whole test file: started
 * before its first test, stopped by pid after its last, and every
 * testStore() without a URL connects to it (useClusterStores). Returns the
 * cluster, for tests that move slots or read the topology.
 */
export function clusterForFile(): () => RedisCluster {
  let cluster: RedisCluster | undefined;
  beforeAll(async () => {
    cluster = await RedisCluster.start({ replicasPerMaster: 0 });
    useClusterStores(() => cluster!.rootNodes);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });
  return () => {
    if (!cluster) throw new Error('the cluster exists only while the file runs');
    return cluster;
  };
}
