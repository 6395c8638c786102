import { Queue, type JobOptions, type RedisStore } from '../../lib/index.js';
import { testStore } from '../helpers/store.js';

describe('retention of finished jobs', () => {
  let store: RedisStore;
  let queue: Queue<number>;
  const done = { count: 0, workerId: 'w', lockMs: 1 };

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue<number>('keep', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  async function runAll(count: number, opts: JobOptions, fail = false): Promise<string[]> {
    const jobs = await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name: 'j', data: i, opts })));
    for (const r of await store.claim('keep', { count, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs)) {
      const lease = { id: r.id, token: r.token! };
      if (fail) await store.fail('keep', lease, { retryDelay: -1, reason: 'error', message: 'x', stack: '', code: 'E' });
      else await store.complete('keep', lease, String(JSON.parse(r.data) * 10), done);
    }
    return jobs.map((j) => j.id);
  }

  it('keeps result, attempts and timestamps of completed jobs by default', async () => {
    const [id] = await runAll(1, {});
    expect(await queue.getJob(id!)).toMatchObject({
      state: 'completed',
      result: 0,
      attempt: 1,
      createdAt: expect.any(Number),
      startedAt: expect.any(Number),
      finishedAt: expect.any(Number),
    });
  });

  it('removeOnComplete: true deletes the job and its log at once', async () => {
    const [id] = await runAll(1, { removeOnComplete: true });
    expect(await queue.getJob(id!)).toBeNull();
    expect(await store.getCounts('keep')).toMatchObject({ completed: 0 });
  });

  it('removeOnComplete: n keeps the newest n', async () => {
    const ids = await runAll(5, { removeOnComplete: 2 });
    expect(await store.listIds('keep', 'completed', 0, -1)).toEqual(ids.slice(3));
    expect(await queue.getJob(ids[0]!)).toBeNull();
  });

  it('removeOnFail: { age } drops dead letters older than age', async () => {
    const [old] = await runAll(1, { removeOnFail: { age: 0.05 } }, true);
    await new Promise((r) => setTimeout(r, 80));
    const [fresh] = await runAll(1, { removeOnFail: { age: 0.05 } }, true);
    expect(await store.listIds('keep', 'failed', 0, -1)).toEqual([fresh]);
    expect(await queue.getJob(old!)).toBeNull();
    expect(await queue.getJob(fresh!)).toMatchObject({ state: 'failed', error: { message: 'x', reason: 'error' } });
  });
});
