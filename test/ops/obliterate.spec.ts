import { createClient } from 'redis';
import { FlowProducer, Queue, UnrecoverableError, Worker, type RedisStore } from '../../lib/index.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * obliterate() of a queue of 100,000 jobs in every lane (plain, prioritized,
 * grouped, LIFO, delayed, parked under a paused name), with what a live queue
 * leaves around them (finished jobs and their logs, dead-letter indexes, a
 * flow, a scheduler, dedup and once records, events, metrics, the workers
 * list, limits), on a redis-server of this file's own: afterwards no key
 * under the queue's hash tag is left (SCAN), a neighbour queue is untouched,
 * and no step held Redis for long (SLOWLOG).
 */
describe('obliterate at scale (100,000 jobs)', () => {
  let server: RedisServer;
  let store: RedisStore;
  let admin: ReturnType<typeof createClient>;

  beforeAll(async () => {
    server = await RedisServer.start();
    store = await testStore(server.url);
    admin = createClient({ url: server.url });
    await admin.connect();
  });

  afterAll(async () => {
    await admin?.close();
    await store?.disconnect();
    await server?.dispose();
  });

  /** Every key whose name starts with `head`, with its type, found by SCAN. */
  async function keysUnder(head: string): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    let cursor = '0';
    do {
      const [next, keys] = (await admin.sendCommand(['SCAN', cursor, 'MATCH', `${head}*`, 'COUNT', '1000'])) as [string, string[]];
      cursor = String(next);
      for (const key of keys) found.set(key, String(await admin.sendCommand(['TYPE', key])));
    } while (cursor !== '0');
    return found;
  }

  it('deletes every key of the queue in short steps and leaves other queues as they were', async () => {
    const doomed = new Queue<number>('doomed', { store });
    const neighbour = new Queue<number>('neighbour', { store });
    await neighbour.addBulk(Array.from({ length: 50 }, (_, i) => ({ name: 'n', data: i })));
    await neighbour.upsertScheduler('tick', { every: 60_000 }, { name: 'tick', data: 0 });

    // What a queue that ran for a while holds besides its waiting jobs.
    await doomed.configure({ concurrency: 50, rateLimit: { max: 10_000, duration: 1000 } });
    await doomed.upsertScheduler('nightly', { cron: '0 3 * * *' }, { name: 'nightly', data: 0 });
    await doomed.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: i % 4 === 0 ? 'bad' : 'good', data: i, opts: { dedup: { key: `d${i}` } } })));
    const parents = new Queue('doomed-parents', { store });
    const flows = new FlowProducer({ store });
    await flows.add({ name: 'p', queueName: 'doomed', children: [{ name: 'good', queueName: 'doomed', data: 0 }] });
    // A parent in another queue: its keys are not the doomed queue's, and stay.
    await flows.add({ name: 'p', queueName: 'doomed-parents', children: [{ name: 'good', queueName: 'doomed', data: 0 }] });
    const worker = new Worker<number>('doomed', async (job) => {
      await job.log(`ran ${job.id}`);
      await job.once('side-effect', () => 'done');
      if (job.name === 'bad') throw new UnrecoverableError('bad');
      return job.data;
    }, { store, concurrency: 10, logFailures: false });
    await waitFor(async () => {
      const c = await doomed.getCounts();
      return c.completed + c.failed >= 43;
    }, { timeout: 20_000, message: 'the first jobs ran' });
    await worker.close();

    const TOTAL = 100_000;
    const lanes = (i: number) =>
      i % 10 === 0 ? { priority: 1 + (i % 7) }
        : i % 10 === 1 ? { group: { id: `tenant-${i % 100}` } }
          : i % 10 === 2 ? { lifo: true }
            : i % 10 === 3 ? { delay: 3_600_000 }
              : {};
    for (let from = 0; from < TOTAL; from += 10_000) {
      await doomed.addBulk(Array.from({ length: 10_000 }, (_, j) => ({ name: (from + j) % 50 === 4 ? 'muted' : 'plain', data: from + j, opts: lanes(from + j) })));
    }
    await doomed.pause({ names: ['muted'] });
    const counts = await doomed.getCounts();
    // The flow parent in this queue may be waiting too, once its child completed.
    expect(counts.waiting + counts.paused + counts.delayed).toBeGreaterThanOrEqual(TOTAL);
    const head = `{${store.prefix}:doomed}`;
    expect((await keysUnder(head)).size).toBeGreaterThan(TOTAL);
    const neighbourBefore = await keysUnder(`{${store.prefix}:neighbour}`);
    const parentsBefore = await keysUnder(`{${store.prefix}:doomed-parents}`);

    await admin.sendCommand(['CONFIG', 'SET', 'slowlog-log-slower-than', '1000']);
    await admin.sendCommand(['CONFIG', 'SET', 'slowlog-max-len', '10000']);
    await admin.sendCommand(['SLOWLOG', 'RESET']);
    const started = Date.now();
    await doomed.obliterate();
    const tookMs = Date.now() - started;
    const log = (await admin.sendCommand(['SLOWLOG', 'GET', '-1'])) as [number, number, number, string[]][];
    const ms = log.map((e) => Number(e[2]) / 1000).sort((x, y) => x - y);
    process.stdout.write(`obliterate of ${TOTAL} jobs: ${tookMs} ms; ${ms.length} commands over 1 ms, longest ${(ms.at(-1) ?? 0).toFixed(2)} ms\n`);

    expect(tookMs).toBeLessThan(60_000);
    // Every step is short: SCAN and UNLINK of 1,000 keys at most. A loaded host has outliers: the typical one is held to it.
    expect(ms[ms.length >> 1] ?? 0).toBeLessThan(10);
    expect([...(await keysUnder(head)).keys()]).toEqual([]);
    expect(await keysUnder(`{${store.prefix}:neighbour}`)).toEqual(neighbourBefore);
    expect(await keysUnder(`{${store.prefix}:doomed-parents}`)).toEqual(parentsBefore);
    expect(await neighbour.getCounts()).toMatchObject({ waiting: 50 });
    expect(await store.listQueues()).not.toContain('doomed');
    void parents;
  }, 240_000);
});
