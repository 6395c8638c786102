import { Queue, ShardCountMismatchError } from '../../lib/index.js';
import { cliEnv, runCli } from '../cli/cli.js';
import { clusterForFile } from '../helpers/cluster-file.js';
import { testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
// The sharded-queue specs again on a 3-master Redis Cluster (every harness
// store connects to it), and the placement: shards land on different masters.
import '../sharding/sharded-queue.spec.js';

const cluster = clusterForFile();

describe('sharded queue placement on a Redis Cluster', () => {
  it('puts shard k on the k-th master (round-robin past the masters) and every process reads the same placement', async () => {
    const store = await testStore();
    const other = await testStore(undefined, store.prefix);
    try {
      const names = await store.placeShards('placed', 6);
      // Slots computed here with the test's own CRC16 (redis-cluster.mjs), owners read from CLUSTER NODES.
      const ports = await Promise.all(names.map(async (name) => (await cluster().masterFor(`{${store.prefix}:${name}}`)).port));
      expect(new Set(ports.slice(0, 3)).size).toBe(3);
      expect(ports.slice(3)).toEqual(ports.slice(0, 3));
      const masters = (await cluster().masters()).map((m) => m.port);
      expect([...ports.slice(0, 3)].sort()).toEqual([...masters].sort());
      expect(await other.placeShards('placed', 6)).toEqual(names);
      await expect(other.placeShards('placed', 4)).rejects.toBeInstanceOf(ShardCountMismatchError);
    } finally {
      await other.disconnect();
      await store.disconnect();
    }
  });

  it('the spool command line reaches the cluster (--cluster) and sees a sharded queue whole (--shards)', async () => {
    const store = await testStore();
    try {
      const queue = new Queue<number>('cli-orders', { store, shards: 3 });
      await queue.addBulk(Array.from({ length: 12 }, (_, i) => ({ name: 'n', data: i, opts: { delay: 60_000 } })));
      const env = cliEnv(store.prefix, { SPOOL_CLUSTER: cluster().rootNodes.map((n) => n.url).join(',') });
      const counts = await runCli(['counts', 'cli-orders', '--shards', '3', '--json'], env);
      expect(counts.code).toBe(0);
      expect(JSON.parse(counts.stdout)).toMatchObject({ queue: 'cli-orders', counts: { delayed: 12 } });
      const promoted = await runCli(['promote', 'cli-orders', '--all', '--yes', '--shards', '3'], env);
      expect(promoted.code).toBe(0);
      expect((await queue.getCounts()).waiting).toBe(12);
      const bad = await runCli(['counts', 'cli-orders', '--shards', 'x'], env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('--shards "x" is not a shard count');
      await queue.purge('completed');
      await queue.cancel({ filter: { state: 'waiting' } });
      await queue.purge('cancelled');
      expect(await queue.verify()).toEqual([]);
    } finally {
      await store.disconnect();
    }
  });
});

describe('resharding under load', () => {
  it("a shard's slot moved to another master mid-run (keys migrated 20 at a time): every job runs once, verify() clean", async () => {
    const { Worker } = await import('../../lib/index.js');
    const store = await testStore();
    const queue = new Queue<number>('moving', { store, shards: 3 });
    const runs = new Map<number, number>();
    const worker = new Worker<number>('moving', async (job) => void runs.set(job.data, (runs.get(job.data) ?? 0) + 1), { store, shards: 3, concurrency: 20 });
    try {
      const [first, second] = await store.placeShards('moving', 3);
      const tag = `{${store.prefix}:${first}}`;
      await queue.addBulk(Array.from({ length: 1500 }, (_, i) => ({ name: 'n', data: i })));
      await waitFor(() => runs.size >= 100, { timeout: 10_000, message: '100 jobs run before the move' });
      const to = await cluster().masterFor(`{${store.prefix}:${second}}`);
      const ranBefore = runs.size;
      const from = await cluster().moveSlot(tag, to, { batch: 20, between: () => new Promise((r) => setTimeout(r, 2)) });
      // The move overlapped the run: jobs were still left when it began, and some ran while keys were moving.
      expect(ranBefore).toBeLessThan(1500);
      expect(runs.size).toBeGreaterThan(ranBefore);
      expect((await cluster().masterFor(tag)).port).toBe(to.port);
      expect(from.port).not.toBe(to.port);
      // More work after the move: adds and claims follow MOVED to the new owner.
      await queue.addBulk(Array.from({ length: 300 }, (_, i) => ({ name: 'n', data: 1500 + i })));
      await waitFor(async () => (await queue.getCounts()).completed === 1800, { timeout: 30_000, message: '1800 completed' });
      expect(runs.size).toBe(1800);
      expect([...runs.values()].every((n) => n === 1)).toBe(true);
      expect(await queue.verify()).toEqual([]);
    } finally {
      await worker.close();
      await store.disconnect();
    }
  });
});
