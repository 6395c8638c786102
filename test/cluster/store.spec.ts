import { createCluster } from 'redis';
import { readFileSync } from 'node:fs';
import { checkDeployment, FlowProducer, Queue, QueueEvents, RateLimitedError, RedisStore, Worker } from '../../lib/index.js';
import { SpoolConnections } from '../../lib/nest/connections.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { keySlot, RedisCluster } from '../helpers/redis-cluster.mjs';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

// RedisStore on a 3-master cluster (no replicas: failover is failover.spec.ts):
// the connection forms, scripts on every master, routing by the queue's tag,
// queues on every master listed, verify() and counts.
describe('RedisStore on Redis Cluster', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await RedisCluster.start({ replicasPerMaster: 0 });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  /** Queue names whose hash tags land on each of the 3 masters. */
  async function queuesOnEveryMaster(prefix: string, perMaster = 1): Promise<string[]> {
    const masters = await cluster.masters();
    const byPort = new Map<number, string[]>(masters.map((m) => [m.port, []]));
    for (let i = 0; [...byPort.values()].some((names) => names.length < perMaster); i++) {
      const name = `q${i}`;
      const owner = await cluster.masterFor(`{${prefix}:${name}}`);
      const names = byPort.get(owner.port)!;
      if (names.length < perMaster) names.push(name);
    }
    return [...byPort.values()].flat();
  }

  it('reports the cluster for the dashboard and doctor: every node with its role and slots; masters without a replica warned', async () => {
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix: uniquePrefix('c-report'), logger: silentLogger });
    await store.connect();
    try {
      const report = await store.serverReport();
      const masters = await cluster.masters();
      expect(report.cluster?.state).toBe('ok');
      expect(report.cluster!.nodes.map((n) => [n.address, n.role]).sort()).toEqual(masters.map((m) => [`127.0.0.1:${m.port}`, 'master']).sort());
      expect(report.cluster!.nodes.every((n) => /^\d+-\d+/.test(n.slots) && n.trouble.length === 0)).toBe(true);
      const findings = await checkDeployment(store);
      expect(findings.filter((f) => f.check === 'cluster').map((f) => [f.severity, f.message])).toEqual([
        ['warn', expect.stringMatching(/^masters 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+ have no replica/)],
        ['ok', '3 masters, 0 replicas, all slots served'],
      ]);
    } finally {
      await store.disconnect();
    }
  });

  it('runs jobs of queues on every master, lists them all, counts and verifies them', async () => {
    const prefix = uniquePrefix('c');
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: silentLogger });
    await store.connect();
    try {
      const names = await queuesOnEveryMaster(prefix);
      const ports = new Set(await Promise.all(names.map(async (n) => (await cluster.masterFor(keySlot(`{${prefix}:${n}}`))).port)));
      expect(ports.size).toBe(3);
      const done: string[] = [];
      const workers = names.map((name) => new Worker(name, async (job) => void done.push(`${name}/${job.id}`), { store, concurrency: 2 }));
      for (const name of names) {
        const queue = new Queue(name, { store });
        await queue.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: 'w', data: { i }, opts: { jobId: `j${i}` } })));
      }
      await waitFor(() => done.length === 15, { timeout: 10_000, message: '15 jobs done on 3 masters' });
      await Promise.all(workers.map((w) => w.close()));
      for (const name of names) {
        const queue = new Queue(name, { store });
        expect((await queue.getCounts()).completed).toBe(5);
        expect(await queue.verify()).toEqual([]);
      }
      expect(await store.listQueues()).toEqual([...names].sort());
      expect(await store.ping()).toBeGreaterThanOrEqual(0);
    } finally {
      await store.disconnect();
    }
  });

  it('loads every script on every master; a master that lost them loads them again on first use', async () => {
    const prefix = uniquePrefix('s');
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: silentLogger });
    await store.connect();
    try {
      const probe = createCluster({ rootNodes: cluster.rootNodes });
      await probe.connect();
      const [name] = await queuesOnEveryMaster(prefix);
      const queue = new Queue(name!, { store });
      await queue.add('w', {}, { jobId: 'first' });
      const sha = await firstScriptSha(store, name!);
      for (const master of await cluster.masters()) {
        const client = await probe.nodeClient(probe.masters.find((m) => m.port === master.port)!);
        expect(await client.sendCommand(['SCRIPT', 'EXISTS', sha])).toEqual([1]);
        await client.sendCommand(['SCRIPT', 'FLUSH']);
      }
      await probe.close();
      await queue.add('w', {}, { jobId: 'after-flush' });
      expect((await queue.getJob('after-flush'))?.state).toBe('waiting');
    } finally {
      await store.disconnect();
    }
  });

  it('pauses and resumes a queue and job names, throttles and renews leases on a cluster', async () => {
    const prefix = uniquePrefix('t');
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: silentLogger });
    await store.connect();
    try {
      const queue = new Queue('ctl', { store });
      expect(await queue.pause()).toBe(true);
      expect(await queue.isPaused()).toBe(true);
      expect(await queue.resume()).toBe(true);
      await queue.setGroupLimits('g', { concurrency: 1 });
      expect(await queue.pauseGroup('g')).toBe(true);
      expect(await queue.resumeGroup('g')).toBe(true);
      await queue.pause({ names: ['later'] });
      expect(await queue.pausedNames()).toEqual(['later']);
      await queue.add('later', {}, { jobId: 'parked' });
      let throttled = false;
      const ran: string[] = [];
      const worker = new Worker(
        'ctl',
        async (job) => {
          if (job.id === 'limited' && !throttled) {
            throttled = true;
            throw new RateLimitedError(50);
          }
          // Long enough for a lease renewal (lockRenewTime 100 ms).
          if (job.id === 'slow') await new Promise((r) => setTimeout(r, 350));
          ran.push(job.id);
        },
        { store, lockDuration: 200, lockRenewTime: 100 },
      );
      await queue.add('now', {}, { jobId: 'limited' });
      await queue.add('now', {}, { jobId: 'slow', group: { id: 'g' } });
      await waitFor(() => ran.length === 2, { timeout: 10_000, message: 'the throttled and the slow job ran' });
      expect(ran.includes('parked')).toBe(false);
      await queue.resume({ names: ['later'] });
      await waitFor(() => ran.includes('parked'), { timeout: 10_000, message: 'the parked job ran after resume' });
      await worker.close();
      expect(throttled).toBe(true);
      expect((await queue.getJob('slow'))?.attempt).toBe(1);
      expect(await queue.verify()).toEqual([]);
    } finally {
      await store.disconnect();
    }
  });

  it('runs a flow whose parent and children live on three different masters', async () => {
    const prefix = uniquePrefix('fl');
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: silentLogger });
    await store.connect();
    try {
      const [parentQ, childA, childB] = await queuesOnEveryMaster(prefix);
      const masters = await Promise.all([parentQ, childA, childB].map(async (n) => (await cluster.masterFor(`{${prefix}:${n}}`)).port));
      expect(new Set(masters).size).toBe(3);
      const flows = new FlowProducer({ store });
      const workers = [
        new Worker(childA!, async (job) => ({ rows: String(job.data).length }), { store }),
        new Worker(childB!, async (job) => ({ rows: String(job.data).length * 10 }), { store }),
        new Worker(parentQ!, async (job) => {
          const parts = await job.getChildrenResults<{ rows: number }>();
          return Object.values(parts).reduce((sum, part) => sum + part.rows, 0);
        }, { store }),
      ];
      const { job } = await flows.add({
        name: 'report',
        queueName: parentQ!,
        children: [
          { name: 'a', queueName: childA!, data: 'sales' },
          { name: 'b', queueName: childB!, data: 'refunds' },
        ],
      });
      expect(await job.waitUntilFinished({ timeout: 15_000 })).toBe(5 + 70);
      await Promise.all(workers.map((w) => w.close()));
      for (const name of [parentQ!, childA!, childB!]) expect(await new Queue(name, { store }).verify()).toEqual([]);
    } finally {
      await store.disconnect();
    }
  });

  it('streams queue events with blocking XREAD through the cluster', async () => {
    const prefix = uniquePrefix('e');
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, logger: silentLogger });
    await store.connect();
    const events = new QueueEvents('evq', { store });
    try {
      await events.ready();
      const queue = new Queue('evq', { store });
      const worker = new Worker('evq', async () => 'ok', { store });
      // Iterating before the add: an iteration delivers the events from its start on.
      const reading = (async () => {
        const seen: string[] = [];
        for await (const e of events) {
          seen.push(`${e.event}:${'jobId' in e ? e.jobId : ''}`);
          if (e.event === 'completed') break;
        }
        return seen;
      })();
      await queue.add('w', {}, { jobId: 'seen' });
      const seen = await reading;
      await worker.close();
      expect(seen).toEqual(['added:seen', 'active:seen', 'completed:seen']);
    } finally {
      await events.close();
      await store.disconnect();
    }
  });

  it('docs/operations/cluster.md connection example, as written', async () => {
    const page = readFileSync(new URL('../../docs/operations/cluster.md', import.meta.url), 'utf8');
    const section = page.slice(page.indexOf('## Redis Cluster'), page.indexOf('## Sharded queues'));
    expect(section).toContain("const store = new RedisStore({\n  cluster: { rootNodes: [{ url: 'redis://10.0.0.1:7000' }, { url: 'redis://10.0.0.2:7000' }] },\n  prefix: 'app',\n});");
    // The same, with this test's cluster for the addresses.
    const store = new RedisStore({
      cluster: { rootNodes: cluster.rootNodes },
      prefix: uniquePrefix('app'),
      logger: silentLogger,
    });
    await store.connect();
    await new Queue('emails', { store }).add('welcome', { to: 'a@example.com' }, { jobId: 'readme' });
    expect((await new Queue('emails', { store }).getJob('readme'))?.state).toBe('waiting');
    await store.disconnect();
  });

  it('gives the Nest module a cluster connection', async () => {
    const prefix = uniquePrefix('nest');
    const connections = SpoolConnections.create({ connection: { cluster: { rootNodes: cluster.rootNodes }, prefix, durability: 'async' } }, silentLogger, () => []);
    try {
      await connections.connect();
      const store = connections.get();
      expect(store).toBeInstanceOf(RedisStore);
      const queue = new Queue('nestq', { store: store as RedisStore });
      await queue.add('w', {}, { jobId: 'n1' });
      expect(await (store as RedisStore).listQueues()).toEqual(['nestq']);
    } finally {
      await connections.onApplicationShutdown();
    }
  });

  it('takes a node-redis cluster client you pass in, and leaves it open', async () => {
    const client = createCluster({ rootNodes: cluster.rootNodes, commandOptions: { timeout: 0 } });
    await client.connect();
    const prefix = uniquePrefix('p');
    const store = new RedisStore({ client, prefix, logger: silentLogger });
    await store.connect();
    const queue = new Queue('passed', { store });
    await queue.add('w', { ok: true }, { jobId: 'one' });
    expect((await queue.getJob('one'))?.data).toEqual({ ok: true });
    const k = keysOf(store, 'passed');
    expect(await commandOf(store).sendCommand(['HGET', k.job('one'), 'state'])).toBe('waiting');
    await store.disconnect();
    expect(client.isOpen).toBe(true);
    expect(await client.get(k.job('none'))).toBeNull();
    await client.close();
  });

  it('warns about a cluster client passed in with node-redis default command timeouts', async () => {
    const client = createCluster({ rootNodes: cluster.rootNodes });
    await client.connect();
    const warnings: string[] = [];
    const store = new RedisStore({ client, prefix: uniquePrefix('w'), logger: { ...silentLogger, warn: (m: string) => void warnings.push(m) } });
    await store.connect();
    await store.disconnect();
    await client.close();
    expect(warnings.some((w) => w.includes('commandOptions.timeout is 5000 ms'))).toBe(true);
  });
});

/** The SHA1 of the add script, as the store sends it. */
async function firstScriptSha(store: RedisStore, queue: string): Promise<string> {
  const { loadScript } = await import('../../lib/store/script-loader.js');
  void store;
  void queue;
  return loadScript('add').sha;
}
