import { createClient } from 'redis';
import { Queue, RedisStore, Worker, type RedisClientLike } from '../../lib/index.js';
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
});
