import { createClient } from 'redis';
import { FlowProducer, Queue, RedisStore, listQueues } from '../../lib/index.js';
import { redisUrl, silentLogger, testStore, uniquePrefix } from '../helpers/store.js';

describe('listQueues(store): the queues under a prefix, found by scanning their sorted sets and meta hashes', () => {
  it('lists every queue with jobs (waiting, delayed, flow) or settings (paused, no job), sorted, and none of another prefix', async () => {
    const prefix = uniquePrefix('lq');
    const store = await testStore(redisUrl(), prefix);
    const other = await testStore();
    try {
      expect(await listQueues(store)).toEqual([]);
      await new Queue('mail', { store }).add('welcome', 1);
      await new Queue('billing', { store }).add('invoice', 1, { delay: 60_000 });
      await new Queue('a:b', { store }).add('x', 1);
      await new FlowProducer({ store }).add({ name: 'parent', queueName: 'reports', data: 1, children: [{ name: 'part', queueName: 'parts', data: 2 }] });
      await new Queue('idle', { store }).pause();
      await new Queue('elsewhere', { store: other }).add('x', 1);
      expect(await listQueues(store)).toEqual(['a:b', 'billing', 'idle', 'mail', 'parts', 'reports']);
      expect(await listQueues(other)).toEqual(['elsewhere']);
    } finally {
      await store.disconnect();
      await other.disconnect();
    }
  });

  it('treats glob characters in the prefix literally', async () => {
    const tag = uniquePrefix('g');
    const star = new RedisStore({ url: redisUrl() }, { prefix: `${tag}*`, logger: silentLogger });
    const plain = new RedisStore({ url: redisUrl() }, { prefix: `${tag}x`, logger: silentLogger });
    await star.connect();
    await plain.connect();
    try {
      await new Queue('q1', { store: plain }).add('x', 1);
      expect(await listQueues(star)).toEqual([]);
      await new Queue('q2', { store: star }).add('x', 1);
      expect(await listQueues(star)).toEqual(['q2']);
      expect(await listQueues(plain)).toEqual(['q1']);
    } finally {
      await star.disconnect();
      await plain.disconnect();
    }
  });

  it('walks a keyspace larger than one SCAN step and reads the queue name up to the end of the hash tag', async () => {
    const prefix = uniquePrefix('big');
    const store = await testStore(redisUrl(), prefix);
    const client = createClient({ url: redisUrl() });
    await client.connect();
    try {
      await Promise.all(Array.from({ length: 30 }, (_, i) => new Queue(`q${String(i).padStart(2, '0')}`, { store }).add('x', i)));
      // Filler keys make SCAN take several steps; a job id holding braces must not read as a queue.
      const filler = Array.from({ length: 3000 }, (_, i) => [`filler-${prefix}-${i}`, '1'] as [string, string]);
      await client.mSet(filler);
      await client.hSet(`{${prefix}:q00}:job:}{x}:meta`, 'f', '1');
      const names = await listQueues(store);
      expect(names).toEqual(Array.from({ length: 30 }, (_, i) => `q${String(i).padStart(2, '0')}`));
      await client.del(filler.map(([k]) => k));
    } finally {
      await client.close();
      await store.disconnect();
    }
  });
});
