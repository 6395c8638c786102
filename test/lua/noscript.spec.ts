import { Queue, type RedisStore } from '../../lib/index.js';
import { testStore } from '../helpers/store.js';
import { commandOf } from '../helpers/redis-access.js';

describe('script cache loss', () => {
  let store: RedisStore;

  beforeEach(async () => {
    store = await testStore();
  });
  afterEach(async () => {
    await store.disconnect();
  });

  it('reloads scripts transparently after SCRIPT FLUSH (NOSCRIPT)', async () => {
    const queue = new Queue('noscript', { store });
    await queue.add('before', 1);
    await commandOf(store, 'test').sendCommand(['SCRIPT', 'FLUSH']);
    const job = await queue.add('after', 2);
    await commandOf(store, 'test').sendCommand(['SCRIPT', 'FLUSH']);
    const claimed = await store.claim('noscript', { count: 2, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs);
    expect(claimed.map((r) => r.name)).toEqual(['before', 'after']);
    await commandOf(store, 'test').sendCommand(['SCRIPT', 'FLUSH']);
    for (const r of claimed) await store.complete('noscript', { id: r.id, token: r.token! }, 'null', { count: 0, workerId: 'w', lockMs: 1 });
    expect((await queue.getJob(job.id))?.state).toBe('completed');
    expect(await queue.verify()).toEqual([]);
  });
});
