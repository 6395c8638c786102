import { createClient } from 'redis';
import { Queue, RedisStore, Worker, type RedisClientLike } from '../../lib/index.js';
import type { NotifyAdapter } from '../../lib/notify/notify-adapter.js';
import { redisUrl, silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

describe('RedisStore connections', () => {
  it("works on the caller's client and leaves it open at disconnect", async () => {
    const client = createClient({ url: redisUrl() });
    await client.connect();
    const store = new RedisStore({ client: client as unknown as RedisClientLike }, { prefix: uniquePrefix(), logger: silentLogger });
    await store.connect();
    const queue = new Queue('byo', { store });
    const worker = new Worker('byo', async () => 'ok', { store, logger: silentLogger });
    const job = await queue.add('x', 1);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    await worker.close();
    await store.disconnect();
    await store.disconnect();
    expect(client.isOpen).toBe(true);
    expect(await client.ping()).toBe('PONG');
    client.destroy();
  });

  it('disconnect is idempotent and Symbol.asyncDispose disconnects', async () => {
    const store = new RedisStore({ url: redisUrl() }, { prefix: uniquePrefix(), logger: silentLogger });
    await store.connect();
    await store.connect();
    await store[Symbol.asyncDispose]();
    await store.disconnect();
    await expect(new Queue('q', { store }).add('x', 1)).rejects.toThrow(/not connected/);
  });

  it('takes the notify adapter as an option: workers are woken through it, and it stays open at disconnect', async () => {
    const prefix = uniquePrefix();
    const owner = new RedisStore({ url: redisUrl() }, { prefix, logger: silentLogger });
    await owner.connect();
    let closed = 0;
    let subscribed = 0;
    const notify: NotifyAdapter = {
      onScheduled: (listener) => ((subscribed += 1), owner.notify.onScheduled(listener)),
      onOwnershipLost: (listener) => owner.notify.onOwnershipLost(listener),
      onFinished: (listener) => owner.notify.onFinished(listener),
      onReconnect: (listener) => owner.notify.onReconnect(listener),
      close: async () => void (closed += 1),
    };
    const store = new RedisStore({ url: redisUrl() }, { prefix, logger: silentLogger, notify });
    expect(store.notify).toBe(notify);
    await store.connect();
    const queue = new Queue('given-notify', { store });
    const done: string[] = [];
    // A poll slower than the test: the worker listens through the given adapter (subscribed), not the store's own.
    const worker = new Worker('given-notify', async (job) => void done.push(job.id), { store, logger: silentLogger, pollInterval: 60_000 });
    await waitFor(() => subscribed > 0);
    const job = await queue.add('x', 1);
    await waitFor(() => done.includes(job.id), { timeout: 5_000 });
    await worker.close();
    await store.disconnect();
    expect(closed).toBe(0);
    await owner.disconnect();
  });
});
