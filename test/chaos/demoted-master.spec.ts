import { createClient } from 'redis';
import { Queue, RedisStore, ReplicationTimeoutError, Worker } from '../../lib/index.js';
import type { RedisClientLike } from '../../lib/store/redis-client.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

// durability 'replicated' when the master that ran a write is demoted before
// its WAIT: WAIT then answers "ERR WAIT cannot be used with replica
// instances" and the write is not confirmed (the failover may have lost
// it). A private master and replica; the store's client is a real
// node-redis client whose WAIT, when armed, first makes the replica the
// master and the master its replica (REPLICAOF), as a failover does, and
// afterwards puts them back (so the retry finds a master again).
describe('chaos: the master is demoted between a write and its WAIT', () => {
  let master: RedisServer;
  let replica: RedisServer;
  let raw: ReturnType<typeof createClient>;
  let admin: { master: ReturnType<typeof createClient>; replica: ReturnType<typeof createClient> };
  let store: RedisStore;
  /** Set: the next WAIT meets a demoted master. */
  let demoteAtNextWait = false;
  const waitReplies: string[] = [];
  let waits = 0;

  const linkUp = async (client: ReturnType<typeof createClient>) =>
    waitFor(async () => /master_link_status:up/.test(String(await client.sendCommand(['INFO', 'replication']))), { timeout: 10_000, message: 'replica in sync' });

  async function failover(): Promise<void> {
    await admin.replica.sendCommand(['REPLICAOF', 'NO', 'ONE']);
    await admin.master.sendCommand(['REPLICAOF', '127.0.0.1', String(replica.port)]);
  }

  async function failBack(): Promise<void> {
    await admin.master.sendCommand(['REPLICAOF', 'NO', 'ONE']);
    await admin.replica.sendCommand(['REPLICAOF', '127.0.0.1', String(master.port)]);
  }

  beforeAll(async () => {
    master = await RedisServer.start();
    replica = await RedisServer.start();
    admin = { master: createClient({ url: master.url }), replica: createClient({ url: replica.url }) };
    await Promise.all([admin.master.connect(), admin.replica.connect()]);
    await admin.replica.sendCommand(['REPLICAOF', '127.0.0.1', String(master.port)]);
    await linkUp(admin.replica);
  });
  afterAll(async () => {
    await Promise.all([admin?.master.close(), admin?.replica.close()]);
    await Promise.all([master?.dispose(), replica?.dispose()]);
  });

  beforeEach(async () => {
    raw = createClient({ url: master.url, commandOptions: { timeout: 0 }, disableOfflineQueue: true });
    await raw.connect();
    const hooked: RedisClientLike = Object.assign(Object.create(raw) as RedisClientLike, {
      sendCommand: async (args: readonly string[]) => {
        if (args[0] === 'WAIT') waits += 1;
        if (args[0] !== 'WAIT' || !demoteAtNextWait) return raw.sendCommand([...args]);
        demoteAtNextWait = false;
        await failover();
        try {
          const reply = await raw.sendCommand([...args]);
          waitReplies.push(String(reply));
          return reply;
        } catch (err) {
          waitReplies.push((err as Error).message);
          throw err;
        } finally {
          await failBack();
        }
      },
    });
    store = new RedisStore({ client: hooked, prefix: uniquePrefix('demoted'), logger: silentLogger, durability: 'replicated', replicationTimeoutMs: 1000 });
    await store.connect();
    waitReplies.length = 0;
    await linkUp(admin.replica);
  });
  afterEach(async () => {
    await store.disconnect();
    await raw.close();
  });

  it('an add is not acknowledged: ReplicationTimeoutError (retryable, "retry with the same jobId"), and the retry adds it once', async () => {
    const queue = new Queue('adds', { store });
    demoteAtNextWait = true;
    const err = await queue.add('x', { n: 1 }, { jobId: 'a1' }).catch((e: unknown) => e);
    expect(waitReplies).toEqual([expect.stringMatching(/^ERR WAIT cannot be used with replica instances/)]);
    expect(err).toBeInstanceOf(ReplicationTimeoutError);
    expect(err).toMatchObject({ permanent: false, demoted: true });
    expect((err as Error).message).toMatch(/^add: not confirmed: the master that ran it was demoted to a replica .* retry with the same jobId/);
    await linkUp(admin.replica);
    expect((await queue.add('x', { n: 1 }, { jobId: 'a1' })).id).toBe('a1');
    expect(await queue.getCounts()).toMatchObject({ waiting: 1 });
    expect(await queue.verify()).toEqual([]);
  });

  it('a completion is retried by the worker, not given up as a script error: the job completes, its handler ran once', async () => {
    const queue = new Queue('completions', { store });
    let runs = 0;
    const worker = new Worker('completions', async () => {
      runs += 1;
      // The next WAIT is this job's completion's (claims, renewals and heartbeats are never waited for).
      demoteAtNextWait = true;
      waits = 0;
      return 'done';
    }, { store, concurrency: 1, lockDuration: 30_000, pollInterval: 60_000 });
    const errors: Error[] = [];
    worker.on('error', (err) => errors.push(err));
    const completed: string[] = [];
    worker.on('completed', (done) => completed.push(done.id));
    try {
      const job = await queue.add('x', {}, { jobId: 'c1' });
      // The worker says completed once its write is confirmed; the lease (30 s) outlives the test, so only its own retry can.
      await waitFor(() => completed.length === 1, { timeout: 10_000, message: 'the worker completed the job' });
      expect(waitReplies[0]).toMatch(/^ERR WAIT cannot be used with replica instances/);
      expect(errors).toEqual([expect.any(ReplicationTimeoutError)]);
      expect(errors[0]).toMatchObject({ demoted: true, permanent: false, script: 'complete' });
      // The completion was written again (and confirmed) on the master that is back: two WAITs, the refused one and the retry's.
      expect(waits).toBe(2);
      expect((await queue.getJob(job.id))?.state).toBe('completed');
      expect(runs).toBe(1);
      expect(await queue.verify()).toEqual([]);
    } finally {
      await worker.close({ timeout: 5000 });
    }
  });
});
