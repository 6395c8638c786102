import { Queue, QueueFullError, type RedisStore } from '../../lib/index.js';
import type { JobRecord } from '../../lib/store/index.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { testStore } from '../helpers/store.js';

/**
 * The two lanes of ungrouped waiting jobs (lua/includes/place): new priority
 * 0 FIFO jobs in the fifo list, every other one in the wait sorted set, and
 * one claim order across them: wait's priority 0 (LIFO, put back), the list,
 * wait's higher priorities.
 */
describe('the fifo lane', () => {
  let store: RedisStore;
  let queue: Queue;
  const Q = 'lanes';

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue(Q, { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  const lanes = async () => {
    const keys = keysOf(store, Q);
    const redis = commandOf(store);
    return {
      listed: (await redis.sendCommand(['LRANGE', keys.fifo, '0', '-1'])) as string[],
      sorted: (await redis.sendCommand(['ZRANGE', keys.wait, '0', '-1'])) as string[],
    };
  };
  const claim = async (count: number): Promise<JobRecord[]> => (await store.claim(Q, { count, workerId: 'w', lockMs: 60_000 })).jobs;
  const names = (jobs: readonly { name: string }[]) => jobs.map((j) => j.name);

  it('keeps new priority 0 FIFO jobs in the list, the others in the sorted set', async () => {
    const plain = await queue.addBulk([{ name: 'p1', data: {} }, { name: 'p2', data: {} }]);
    const one = await queue.add('p3', {});
    const urgent = await queue.add('urgent', {}, { priority: 1 });
    const last = await queue.add('lifo', {}, { lifo: true });
    const grouped = await queue.add('g', {}, { group: { id: 'tenant' } });
    expect(await lanes()).toEqual({ listed: [plain[0]!.id, plain[1]!.id, one.id], sorted: [last.id, urgent.id] });
    expect(await queue.getCounts()).toMatchObject({ waiting: 6 });
    expect(grouped.state).toBe('waiting');
  });

  it('claims across the lanes in order: LIFO, the list, higher priorities', async () => {
    await queue.add('low', {}, { priority: 3 });
    await queue.add('f1', {});
    await queue.add('lifo', {}, { lifo: true });
    await queue.add('f2', {});
    await queue.add('mid', {}, { priority: 1 });
    expect(await queue.getJobs('waiting').then(names)).toEqual(['lifo', 'f1', 'f2', 'mid', 'low']);
    expect(names(await claim(2))).toEqual(['lifo', 'f1']);
    expect(names(await claim(10))).toEqual(['f2', 'mid', 'low']);
  });

  it('puts a released listed job back ahead of the list, in the order the jobs held', async () => {
    await queue.addBulk(['a', 'b', 'c', 'd'].map((name) => ({ name, data: {} })));
    const [a, b] = await claim(2);
    await store.release(Q, { id: b!.id, token: b!.token! });
    await store.release(Q, { id: a!.id, token: a!.token! });
    expect(await lanes()).toMatchObject({ sorted: [a!.id, b!.id] });
    expect(await queue.getJobs('waiting').then(names)).toEqual(['a', 'b', 'c', 'd']);
    expect(names(await claim(4))).toEqual(['a', 'b', 'c', 'd']);
  });

  it('cancels a listed job from the middle of the list', async () => {
    const jobs = await queue.addBulk(['a', 'b', 'c'].map((name) => ({ name, data: {} })));
    expect(await queue.cancel(jobs[1]!.id)).toBe('cancelled');
    expect((await lanes()).listed).toEqual([jobs[0]!.id, jobs[2]!.id]);
    expect(await queue.getCounts()).toMatchObject({ waiting: 2, cancelled: 1 });
    expect(names(await claim(5))).toEqual(['a', 'c']);
  });

  it('parks listed jobs of a paused name and brings them back ahead of the list', async () => {
    await queue.add('report', { n: 1 });
    await queue.add('mail', { n: 1 });
    await queue.pause({ names: ['report'] });
    await queue.add('report', { n: 2 });
    await queue.add('mail', { n: 2 });
    expect(names(await claim(1))).toEqual(['mail']); // report 1 was parked on the way
    expect(await queue.getCounts()).toMatchObject({ waiting: 1, paused: 2 });
    await queue.resume({ names: ['report'] });
    const rest = await claim(5);
    expect(rest.map((j) => `${j.name}${(JSON.parse(j.data) as { n: number }).n}`)).toEqual(['report1', 'report2', 'mail2']);
  });

  it('pages every waiting job once across the lanes while claims take the list head', async () => {
    await queue.add('top', {}, { lifo: true });
    await queue.addBulk(Array.from({ length: 7 }, (_, i) => ({ name: `f${i}`, data: {} })));
    await queue.add('later', {}, { priority: 2 });
    const seen: string[] = [];
    let after: { id: string; score: number } | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await store.page(Q, { index: { state: 'waiting' }, order: 'asc', limit: 2, budget: 2, ...(after && { after }) });
      seen.push(...page.jobs.map((j) => j.name));
      if (pages === 0) expect(names(await claim(1))).toEqual(['top']); // the cursor (f0) stays listed
      if (pages === 1) expect(names(await claim(3))).toEqual(['f0', 'f1', 'f2']); // the cursor (f2) left: found by its score
      if (page.done || !page.last) break;
      after = page.last;
    }
    expect(seen).toEqual(['top', 'f0', 'f1', 'f2', 'f3', 'f4', 'f5', 'f6', 'later']);
    expect(await queue.cancel({ filter: { state: 'waiting', name: 'f4' } })).toBe(1);
    expect(await queue.getJobs('waiting', { start: 0, end: 1 }).then(names)).toEqual(['f3', 'f5']);
    expect(await queue.getJobs('waiting', { start: 2, end: -1 }).then(names)).toEqual(['f6', 'later']);
  });

  it('a page resumes right after a listed cursor that was cancelled, repeating none of the jobs before it', async () => {
    const jobs = await queue.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, data: {} })));
    const first = await store.page(Q, { index: { state: 'waiting' }, order: 'asc', limit: 2, budget: 2 });
    expect(first.jobs.map((j) => j.name)).toEqual(['f0', 'f1']);
    const ws = Number(await commandOf(store).sendCommand(['HGET', keysOf(store, Q).job(jobs[1]!.id), 'ws']));
    expect(first.last).toEqual({ id: jobs[1]!.id, score: -ws }); // a listed cursor: minus its score
    expect(await queue.cancel(jobs[1]!.id)).toBe('cancelled'); // the cursor leaves; f0 stays ahead of it
    const second = await store.page(Q, { index: { state: 'waiting' }, order: 'asc', limit: 10, budget: 10, after: first.last! });
    expect(second.jobs.map((j) => j.name)).toEqual(['f2', 'f3', 'f4', 'f5']);
    // Filtered bulk cancel pages the same way: every match goes, the rest stays in order.
    await queue.addBulk(Array.from({ length: 1200 }, (_, i) => ({ name: i % 2 ? 'keep' : 'drop', data: {} })));
    expect(await queue.cancel({ filter: { state: 'waiting', name: 'drop' } })).toBe(600);
    expect(await queue.getCounts()).toMatchObject({ waiting: 605 });
  });

  it('counts listed jobs against maxWaiting', async () => {
    await queue.configure({ maxWaiting: 2 });
    await queue.addBulk([{ name: 'a', data: {} }, { name: 'b', data: {} }]);
    await expect(queue.add('c', {})).rejects.toThrow(QueueFullError);
    expect(await queue.getCounts()).toMatchObject({ waiting: 2 });
  });
});
