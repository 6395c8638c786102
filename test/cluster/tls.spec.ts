import { rmSync } from 'node:fs';
import { Queue, QueueEvents, RedisStore, Worker } from '../../lib/index.js';
import { RedisCluster } from '../helpers/redis-cluster.mjs';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { makeCertificates, type TestCertificates } from '../helpers/tls-redis.js';
import { waitFor } from '../helpers/wait-for.js';

// `{ cluster: { rootNodes }, tls }` on a real TLS Redis Cluster: 3 masters
// that take clients only over TLS with a certificate of the test's own CA
// (the plain ports are the harness's; the store is given only rediss:// URLs).
// The nodes the store finds through CLUSTER SLOTS get the same tls options:
// without them the TLS handshake with each node fails and no job runs.
describe('RedisStore on a TLS Redis Cluster', () => {
  let certs: TestCertificates;
  let cluster: RedisCluster;
  beforeAll(async () => {
    certs = makeCertificates();
    cluster = await RedisCluster.start({ replicasPerMaster: 0, tls: certs });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    if (certs) rmSync(certs.dir, { recursive: true, force: true });
  });

  it('runs jobs of queues on every master over TLS, QueueEvents sees them, verify() clean', async () => {
    const prefix = uniquePrefix('ctls');
    const store = new RedisStore({ cluster: { rootNodes: cluster.tlsRootNodes }, tls: { ca: certs.ca, cert: certs.cert, key: certs.key }, prefix, logger: silentLogger });
    await store.connect();
    try {
      // Queue names whose hash tags land on each of the 3 masters.
      const byPort = new Map<number, string>();
      for (let i = 0; byPort.size < 3; i++) {
        const owner = await cluster.masterFor(`{${prefix}:q${i}}`);
        if (!byPort.has(owner.port)) byPort.set(owner.port, `q${i}`);
      }
      const names = [...byPort.values()];
      const events = names.map((name) => new QueueEvents(name, { store }));
      await Promise.all(events.map((e) => e.ready()));
      const completed: string[] = [];
      const reading = events.map(async (e, i) => {
        for await (const event of e) {
          if (event.event === 'completed') completed.push(`${names[i]}/${event.jobId}`);
          if (completed.filter((c) => c.startsWith(`${names[i]}/`)).length === 3) break;
        }
      });
      const done: string[] = [];
      const workers = names.map((name) => new Worker(name, async (job) => void done.push(`${name}/${job.id}`), { store, concurrency: 2 }));
      for (const name of names) {
        await new Queue(name, { store }).addBulk(Array.from({ length: 3 }, (_, i) => ({ name: 'w', data: { i }, opts: { jobId: `j${i}` } })));
      }
      await waitFor(() => done.length === 9, { timeout: 10_000, message: '9 jobs done on 3 TLS masters' });
      await Promise.race([Promise.all(reading), new Promise((_, reject) => setTimeout(() => reject(new Error('QueueEvents: not every completed event within 10 s')), 10_000).unref())]);
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all(events.map((e) => e.close()));
      const expected = names.flatMap((n) => [0, 1, 2].map((i) => `${n}/j${i}`)).sort();
      expect([...done].sort()).toEqual(expected);
      expect([...completed].sort()).toEqual(expected);
      for (const name of names) {
        const queue = new Queue(name, { store });
        expect((await queue.getCounts()).completed).toBe(3);
        expect(await queue.verify()).toEqual([]);
      }
    } finally {
      await store.disconnect();
    }
  }, 30_000);

  it('refuses a server certificate from another CA with a clear error, within a bound', async () => {
    const other = makeCertificates();
    try {
      const store = new RedisStore({ cluster: { rootNodes: cluster.tlsRootNodes }, tls: { ca: other.ca, cert: other.cert, key: other.key }, prefix: uniquePrefix('ctls-bad'), logger: silentLogger });
      const started = Date.now();
      await expect(store.connect()).rejects.toThrow(/certificate/i);
      expect(Date.now() - started).toBeLessThan(10_000);
      await store.disconnect().catch(() => undefined);
    } finally {
      rmSync(other.dir, { recursive: true, force: true });
    }
  }, 20_000);
});
