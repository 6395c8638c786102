import { Registry } from 'prom-client';
import { Queue, type RedisStore } from '../../lib/index.js';
import { SpoolPrometheus } from '../../lib/observability/prometheus.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * getMetrics() and a Prometheus scrape execute a bounded number of Redis
 * commands, whatever the number of jobs: counted with INFO commandstats
 * (calls made inside scripts included) on a private server, so no other
 * test's commands are counted.
 */
describe('metrics at scale (100,000 retained jobs)', () => {
  let server: RedisServer;
  let store: RedisStore;

  beforeAll(async () => {
    server = await RedisServer.start();
    store = await testStore(server.url);
  });
  afterAll(async () => {
    await store?.disconnect();
    await server?.stop();
  });

  /** Commands the server executed while `action` ran, INFO and CONFIG (the probe's own) excluded. */
  async function commandsOf(action: () => Promise<unknown>): Promise<number> {
    const client = store.command('test');
    await client.sendCommand(['CONFIG', 'RESETSTAT']);
    await action();
    const info = String(await client.sendCommand(['INFO', 'commandstats']));
    let total = 0;
    for (const match of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) {
      if (!['info', 'config'].includes(match[1]!)) total += Number(match[2]);
    }
    return total;
  }

  /**
   * A queue of `n` jobs with the same shape at any size: dead letters (a
   * deadline passed before they could start, dead-lettered by claim),
   * waiting jobs in three priority bands and one group, delayed jobs.
   */
  async function fill(name: string, n: number): Promise<Queue> {
    // Every dead letter retained (the default keeps the newest 10,000).
    const queue = new Queue(name, { store, defaultJobOptions: { removeOnFail: false } });
    const dead = n / 2;
    const deadline = Date.now() + 200;
    for (let i = 0; i < dead; i += 1000) {
      await queue.addBulk(Array.from({ length: Math.min(1000, dead - i) }, (_, j) => ({ name: 'late', data: i + j, opts: { deadline } })));
    }
    await waitFor(() => Date.now() > deadline + 5, { message: 'the deadline to pass' });
    // Every claim dead-letters the late jobs it meets; nothing is left to start.
    await waitFor(async () => (await store.claim(name, { count: 1000, workerId: 'w', lockMs: 1000 })).jobs.length === 0 && (await queue.getCounts()).failed === dead, {
      timeout: 60_000,
      interval: 0,
      message: 'the late jobs to be dead-lettered',
    });
    const rest = n / 2;
    for (let i = 0; i < rest; i += 1000) {
      await queue.addBulk(
        Array.from({ length: Math.min(1000, rest - i) }, (_, j) => {
          const k = i + j;
          const opts = k % 5 === 0 ? { delay: 60_000 } : k % 5 === 1 ? { group: { id: 'tenant' } } : { priority: k % 3 };
          return { name: 'job', data: k, opts };
        }),
      );
    }
    return queue;
  }

  it('reads getMetrics() and serves a scrape in as many commands with 100,000 jobs as with 100', async () => {
    const small = await fill('small', 100);
    const large = await fill('large', 100_000);
    const counts = await large.getCounts();
    expect(counts.failed).toBe(50_000);
    expect(counts.waiting + counts.delayed).toBe(50_000);
    const m = await large.getMetrics();
    expect(m.lastHour.deadLettered).toBe(50_000);
    expect(m.oldestWaitingMs).toBeGreaterThanOrEqual(0);

    const smallCost = await commandsOf(() => small.getMetrics());
    const largeCost = await commandsOf(() => large.getMetrics());
    expect(largeCost).toBe(smallCost);
    expect(largeCost).toBeLessThan(120);

    const registry = new Registry();
    const collector = new SpoolPrometheus({ queues: [large], registry });
    const scrapeCost = await commandsOf(() => registry.metrics());
    expect(scrapeCost).toBe(largeCost);
    collector.close();
  }, 180_000);
});
