import { DEFAULT_RETENTION, InvalidArgumentError } from '../../lib/index.js';
import { createClient } from 'redis';
import { queueKeys } from '../../lib/store/keys.js';
import { engineHarness } from '../helpers/harness.js';
import { redisUrl } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

// Defaults that do not grow without bound: finished jobs are trimmed by
// count (and age) unless a job asks to be kept, and getJobs reads a page.
describe('bounded defaults', () => {
  const h = engineHarness();

  it('keeps the newest 1,000 completed jobs by default; removeOnComplete: false keeps all', async () => {
    expect(DEFAULT_RETENTION).toEqual({ completed: { count: 1000, age: 86_400 }, failed: { count: 10_000, age: 2_592_000 } });
    const queue = h.queue('done');
    const kept = h.queue('kept');
    const total = 1_050;
    await queue.addBulk(Array.from({ length: total }, (_, i) => ({ name: 'x', data: { i } })));
    await kept.addBulk(Array.from({ length: total }, (_, i) => ({ name: 'x', data: { i }, opts: { removeOnComplete: false } })));
    h.worker('done', async () => 'ok', { concurrency: 50 });
    h.worker('kept', async () => 'ok', { concurrency: 50 });
    const settled = async (q: typeof queue) => {
      const c = await q.getCounts();
      return c.waiting + c.active === 0;
    };
    await waitFor(async () => (await settled(queue)) && (await settled(kept)), { timeout: 30_000, interval: 100, message: 'every job finished' });
    expect((await queue.getCounts()).completed).toBe(1_000);
    expect((await kept.getCounts()).completed).toBe(total);
  }, 40_000);

  it('applies the failed default (10,000 for 30 days) to every job without storing it', async () => {
    const queue = h.queue('dead');
    const job = await queue.add('x', {});
    h.worker('dead', async () => {
      throw new Error('no');
    });
    await expect(queue.waitFor(job.id, { timeout: 5000 })).rejects.toThrow('no');
    // The dead letter stays (it is within the bounds). Its compact hash (no id field) holds
    // no rc/rf: absent they mean the defaults (lua/includes/retention), which saves 41 bytes a job.
    expect((await queue.getJob(job.id))?.state).toBe('failed');
    const client = createClient({ url: redisUrl() });
    await client.connect();
    try {
      const key = queueKeys(h.store.prefix, 'dead').job(job.id);
      expect(await client.hmGet(key, ['rc', 'rf', 'id'])).toEqual([null, null, null]);
    } finally {
      client.destroy();
    }
  });

  it('getJobs reads a page: the first 100 by default, { start, end } for others', async () => {
    const queue = h.queue('paged');
    const jobs = await queue.addBulk(Array.from({ length: 250 }, (_, i) => ({ name: 'x', data: { i } })));
    const ids = jobs.map((j) => j.id);
    expect((await queue.getJobs('waiting')).map((j) => j.id)).toEqual(ids.slice(0, 100));
    expect((await queue.getJobs('waiting', { start: 100 })).map((j) => j.id)).toEqual(ids.slice(100, 200));
    expect((await queue.getJobs('waiting', { start: 200, end: -1 })).map((j) => j.id)).toEqual(ids.slice(200));
    expect((await queue.getJobs('waiting', { start: 10, end: 12 })).map((j) => j.id)).toEqual(ids.slice(10, 13));
    // The positional form means the same.
    expect((await queue.getJobs('waiting', 10, 12)).map((j) => j.id)).toEqual(ids.slice(10, 13));
    await expect(queue.getJobs('waiting', { start: -1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(queue.getJobs('waiting', { start: 5, end: 2 })).rejects.toThrow('getJobs page.end (2) is before start (5)');
    await expect(queue.getJobs('waiting', { strat: 5 } as never)).rejects.toThrow('did you mean "start"?');
  });
});
