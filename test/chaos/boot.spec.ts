import { Queue, RedisStore, RedisUnavailableError } from '../../lib/index.js';
import { freePort, RedisServer } from '../helpers/redis-server.mjs';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { ChaosWorker } from './support/chaos-process.js';
import { ownRedis } from './support/own-redis.js';

// Redis down when the application boots, and Redis busy with someone else's
// long script. Own redis-servers only.
describe('chaos: Redis down at boot', () => {
  it('a producer fails fast with RedisUnavailableError; a worker waits and starts consuming once Redis is up', async () => {
    const port = await freePort();
    const url = `redis://127.0.0.1:${port}`;
    const prefix = uniquePrefix('boot');

    const producer = new RedisStore({ url }, { prefix, logger: silentLogger });
    const startedAt = Date.now();
    const err = await producer.connect().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RedisUnavailableError);
    expect((err as Error).message).toMatch(/Redis is unreachable.*ECONNREFUSED/);
    expect(Date.now() - startedAt).toBeLessThan(3000);
    await producer.disconnect();

    const worker = await ChaosWorker.start({ url, prefix, queue: 'q', wait: true, worker: { pollInterval: 60_000 } }, { ready: false });
    let server: RedisServer | undefined;
    try {
      await waitFor(() => worker.has('connecting'), { timeout: 10_000, interval: 20, message: 'worker process booted' });
      await new Promise((r) => setTimeout(r, 500));
      expect(worker.alive).toBe(true);
      expect(worker.has('ready')).toBe(false);

      server = await RedisServer.start({ port });
      await worker.ready();
      const store = new RedisStore({ url }, { prefix, logger: silentLogger });
      await store.connect();
      const queue = new Queue('q', { store });
      await queue.add('work', { mode: 'ok' }, { jobId: 'first' });
      await waitFor(() => worker.has('completed', 'first'), { timeout: 10_000, interval: 20, message: 'worker ran the first job' });
      await worker.close();
      expect(await queue.verify()).toEqual([]);
      await store.disconnect();
    } finally {
      await worker.kill();
      await server?.dispose();
    }
  });

  it('disconnect() ends a connect({ wait: true }) still waiting for Redis', async () => {
    const store = new RedisStore({ url: `redis://127.0.0.1:${await freePort()}` }, { prefix: uniquePrefix('w'), logger: silentLogger });
    const connecting = store.connect({ wait: true }).then(() => 'connected', (e: unknown) => e);
    await new Promise((r) => setTimeout(r, 300));
    await store.disconnect();
    expect(await connecting).toBeInstanceOf(RedisUnavailableError);
  });

  it('a connected producer whose Redis went away gets RedisUnavailableError at add() and at reads, at once', async () => {
    const redis = await ownRedis();
    const store = new RedisStore({ url: redis.url }, { prefix: uniquePrefix('down'), logger: silentLogger });
    await store.connect();
    const queue = new Queue('q', { store });
    try {
      await redis.server.stop();
      const startedAt = Date.now();
      await expect(queue.add('work', {})).rejects.toBeInstanceOf(RedisUnavailableError);
      expect(Date.now() - startedAt).toBeLessThan(1000);
      // Reads that are plain commands, not scripts, fail the same typed way.
      await expect(queue.getJob('any')).rejects.toBeInstanceOf(RedisUnavailableError);
      await expect(queue.getCounts()).rejects.toBeInstanceOf(RedisUnavailableError);
    } finally {
      await store.disconnect();
      await redis.dispose();
    }
  });
});

describe('chaos: transient refusals', () => {
  it('retries a script refused with BUSY while another client runs a long script', async () => {
    const redis = await ownRedis({ args: ['--busy-reply-threshold', '100'] });
    const store = new RedisStore({ url: redis.url }, { prefix: uniquePrefix('busy'), logger: silentLogger });
    await store.connect();
    const queue = new Queue('q', { store });
    const admin = await redis.admin();
    try {
      const busyLoop = `local t0 = redis.call('TIME')
        repeat local t = redis.call('TIME') until (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) > 1200000
        return 1`;
      const longScript = admin.sendCommand(['EVAL', busyLoop, '0']);
      // Be sure the long script is past the BUSY threshold before adding.
      await new Promise((r) => setTimeout(r, 300));
      const startedAt = Date.now();
      const job = await queue.add('work', { n: 1 });
      expect(Date.now() - startedAt).toBeGreaterThan(300);
      await longScript;
      expect((await queue.getJob(job.id))?.state).toBe('waiting');
      expect(await queue.verify()).toEqual([]);
    } finally {
      await store.disconnect();
      await redis.dispose();
    }
  });
});
