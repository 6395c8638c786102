import { createSentinel } from 'redis';
import { Queue, QueueEvents, RedisStore, Worker, type QueueEvent } from '../../lib/index.js';
import { logRecorder } from '../helpers/log-recorder.js';
import { MASTER_NAME, SentinelGroup } from '../helpers/sentinel-group.js';
import { uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { cliEnv, runCli } from '../cli/cli.js';

/**
 * Redis Sentinel for real: a master, a replica and three sentinels started
 * here. The master is SIGKILLed while a producer adds and a worker runs
 * jobs; the sentinels promote the replica and node-redis follows it. With
 * durability 'replicated' an add is acknowledged once the replica has it,
 * so the promoted replica has every acknowledged job: none is lost, and the
 * worker runs them all without anyone restarting it. Once the sentinels
 * promoted the replica, a replacement replica joins the new master: a
 * 'replicated' write needs one (a lone master confirms nothing; the killed
 * server, restarted, would be turned into a replica by the sentinels only
 * after their next INFO round, some 10 s later). A second producer with
 * durability 'async' shows how soon writes are taken at all.
 */
describe('Redis Sentinel over TLS with passwords: failover under load', () => {
  let group: SentinelGroup;
  const prefix = uniquePrefix('sentinel');

  beforeAll(async () => {
    group = await SentinelGroup.start();
  }, 30_000);
  afterAll(async () => {
    await group?.dispose();
  });

  it('follows the master across a SIGKILL failover: commands, scripts, subscriber and blocking reads; no acknowledged add lost', async () => {
    const rec = logRecorder();
    // The sentinels' password inside sentinel, the master's beside it; TLS for both (sentinel.tls defaults to the master's).
    const connection = { sentinel: { name: MASTER_NAME, sentinels: group.nodes, password: group.passwords.sentinel }, password: group.passwords.master, tls: group.tls, prefix, durability: 'replicated' as const, replicationTimeoutMs: 500, logger: rec.logger };
    const producerStore = new RedisStore(connection);
    const asyncStore = new RedisStore({ ...connection, durability: 'async' });
    const asyncQueue = new Queue<number>('orders-async', { store: asyncStore });
    let firstAsyncAfterKill = 0;
    const workerStore = new RedisStore(connection);
    const queue = new Queue<number>('orders', { store: producerStore });
    const ran = new Map<string, number>();
    let worker: Worker<number> | undefined;
    let events: QueueEvents | undefined;
    const seen: QueueEvent[] = [];
    const acked: string[] = [];
    let stop = false;
    let killedAt = 0;
    let firstAfterKill = 0;
    try {
      await producerStore.connect();
      await asyncStore.connect();
      await workerStore.connect({ wait: true });
      worker = new Worker<number>('orders', async (job) => void ran.set(job.id, (ran.get(job.id) ?? 0) + 1), { store: workerStore, pollInterval: 30_000, lockDuration: 2000, concurrency: 4 });
      events = new QueueEvents('orders', { store: workerStore, blockMs: 200 });
      events.on('event', (e) => seen.push(e));
      await events.ready();

      // A producer as an app writes one: each job has an id, a failed add is retried with the same id.
      const producing = (async () => {
        for (let n = 0; !stop; n++) {
          const jobId = `order-${n}`;
          for (;;) {
            const started = Date.now();
            try {
              await queue.add('order', n, { jobId });
              acked.push(jobId);
              if (killedAt > 0 && firstAfterKill === 0 && started >= killedAt) firstAfterKill = Date.now();
              break;
            } catch {
              if (stop) return;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          }
        }
      })();

      const producingAsync = (async () => {
        for (let n = 0; !stop; n++) {
          const started = Date.now();
          try {
            await asyncQueue.add('order', n, { jobId: `async-${n}` });
            if (killedAt > 0 && firstAsyncAfterKill === 0 && started >= killedAt) firstAsyncAfterKill = Date.now();
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        }
      })();

      await waitFor(() => acked.length >= 50 && ran.size >= 20, { timeout: 10_000, message: 'jobs added and run before the kill' }).catch((err: Error) => {
        throw new Error(`${err.message} (${acked.length} adds acknowledged, ${ran.size} run)`);
      });
      const master = await group.master();
      const oldPort = await group.masterPort();
      await master.kill();
      killedAt = Date.now();
      await waitFor(async () => (await group.masterPort()) !== oldPort, { timeout: 20_000, interval: 50, message: 'the sentinels to promote the replica' });
      const promotedAt = Date.now();
      await group.addReplica();
      await waitFor(() => firstAfterKill > 0 && firstAsyncAfterKill > 0, { timeout: 20_000, interval: 20, message: 'adds accepted after the failover' });
      const ackedAtFailover = acked.length;
      await waitFor(() => acked.length >= ackedAtFailover + 50, { timeout: 10_000, message: 'adds to go on after the failover' });
      stop = true;
      await Promise.all([producing, producingAsync]);

      // The worker, its subscriber and the event reader carry on by themselves. A claim whose reply the
      // kill cut off leaves its job active until the lease expires (lockDuration 2 s here), then it runs again.
      await waitFor(() => acked.every((id) => ran.has(id)), { timeout: 20_000, interval: 50, message: 'every acknowledged job to run' });
      const lastId = acked[acked.length - 1]!;
      await waitFor(() => seen.some((e) => e.event === 'completed' && e.jobId === lastId), { timeout: 10_000, message: 'the event reader to see the last job' });
      expect(await queue.verify()).toEqual([]);
      // An idle worker hears of a new job on the new master's pub/sub (its fallback poll is 30 s away).
      const late = await queue.add('order', -1, { jobId: 'late' });
      await waitFor(() => ran.has(late.id), { timeout: 5000, message: 'the idle worker woken through the subscriber' });
      // The CLI finds the new master through the sentinels too.
      const sentinelFlag = `${MASTER_NAME}@${group.nodes.map((n) => `${n.host}:${n.port}`).join(',')}`;
      const counts = await runCli(['counts', '--json', '--sentinel', sentinelFlag], cliEnv(prefix, { REDIS_URL: 'redis://127.0.0.1:1', REDIS_PASSWORD: group.passwords.master, SPOOL_SENTINEL_PASSWORD: group.passwords.sentinel, SPOOL_TLS_CA: group.certs.caFile }));
      expect(counts.code).toBe(0);
      const orders = (JSON.parse(counts.stdout) as { queue: string; counts: { completed: number } }[]).find((row) => row.queue === 'orders');
      expect(orders?.counts.completed).toBeGreaterThanOrEqual(new Set(acked).size);
      const secs = (at: number): string => ((at - killedAt) / 1000).toFixed(2);
      process.stdout.write(
        `sentinel failover after SIGKILL of the master: replica promoted at ${secs(promotedAt)} s, first 'async' add accepted at ${secs(firstAsyncAfterKill)} s, ` +
          `first 'replicated' add acknowledged at ${secs(firstAfterKill)} s (a replacement replica joined); ${acked.length} adds acknowledged, all run\n`,
      );
    } finally {
      stop = true;
      await worker?.close();
      await events?.close();
      await producerStore.disconnect();
      await asyncStore.disconnect();
      await workerStore.disconnect();
    }
  }, 90_000);

  it('takes a createSentinel() client of your own as { client }, and leaves it open', async () => {
    const client = createSentinel({
      name: MASTER_NAME,
      sentinelRootNodes: group.nodes,
      nodeClientOptions: { password: group.passwords.master, socket: { tls: true, ca: group.tls.ca } },
      sentinelClientOptions: { password: group.passwords.sentinel, socket: { tls: true, ca: group.tls.ca } },
      commandOptions: { timeout: 0 },
    });
    await client.connect();
    const store = new RedisStore({ client, prefix: uniquePrefix('own-sentinel') });
    const queue = new Queue<number, number>('mine', { store });
    await store.connect();
    const worker = new Worker<number, number>('mine', async (job) => job.data + 1, { store });
    const events = new QueueEvents('mine', { store, blockMs: 200 });
    const seen: QueueEvent[] = [];
    events.on('event', (e) => seen.push(e));
    try {
      await events.ready();
      const job = await queue.add('inc', 41);
      expect(await queue.waitFor(job.id, { timeout: 10_000 })).toBe(42);
      await waitFor(() => seen.some((e) => e.event === 'completed' && e.jobId === job.id), { message: 'the completed event' });
    } finally {
      await worker.close();
      await events.close();
      await store.disconnect();
    }
    expect(client.isOpen).toBe(true);
    await client.close();
  }, 30_000);
});
