import { Queue, Worker } from '../../lib/index.js';
import { MemoryStore } from '../../lib/testing/index.js';
import { waitFor } from '../helpers/wait-for.js';

// A sharded queue needs nothing of Redis: on MemoryStore its shards are
// named <queue>~<k> and the same view spreads and merges them.
describe('sharded queue on MemoryStore', () => {
  it('spreads jobs over <queue>~0..2 and runs each once', async () => {
    const store = new MemoryStore();
    const queue = new Queue<number>('mem', { store, shards: 3 });
    const ran: number[] = [];
    const worker = new Worker<number>('mem', async (job) => void ran.push(job.data), { store, shards: 3, concurrency: 4 });
    try {
      await queue.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'm', data: i })));
      await waitFor(() => ran.length === 30, { message: '30 jobs run' });
      const perShard = await Promise.all([0, 1, 2].map(async (k) => (await store.getCounts(`mem~${k}`)).completed));
      expect(perShard.every((n) => n > 0)).toBe(true);
      expect(perShard.reduce((a, b) => a + b, 0)).toBe(30);
      expect(ran.sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i));
      expect(await queue.verify()).toEqual([]);
    } finally {
      await worker.close();
      await store.disconnect();
    }
  });
});
