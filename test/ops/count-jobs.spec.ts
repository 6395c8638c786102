import { InvalidArgumentError, Queue, type RedisStore } from '../../lib/index.js';
import { testStore } from '../helpers/store.js';

/** queue.countJobs(): what "all matching" actions of the dashboard touch, counted through the engine's page scans. */
describe('countJobs', () => {
  let store: RedisStore;
  let queue: Queue<number>;

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue<number>('count', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('counts a state, a name in it, and dead letters by name, reason and error text', async () => {
    await queue.addBulk([
      ...Array.from({ length: 1203 }, (_, i) => ({ name: 'send', data: i, opts: { delay: 60_000 } })),
      ...Array.from({ length: 7 }, (_, i) => ({ name: 'digest', data: i, opts: { delay: 60_000 } })),
      ...Array.from({ length: 6 }, (_, i) => ({ name: 'send', data: i })),
    ]);
    const { jobs } = await store.claim(queue.name, { count: 6, workerId: 'w', lockMs: 60_000 });
    for (const [i, r] of jobs.entries()) {
      await store.fail(queue.name, { id: r.id, token: r.token! }, { retryDelay: -1, reason: i < 4 ? 'timeout' : 'error', message: i % 2 ? 'connect ECONNREFUSED' : 'smtp 550', stack: '', code: 'Error' });
    }
    expect(await queue.countJobs('delayed')).toBe(1210);
    expect(await queue.countJobs('delayed', { name: 'send' })).toBe(1203);
    expect(await queue.countJobs('delayed', { name: 'digest' })).toBe(7);
    expect(await queue.countJobs('delayed', { name: 'none' })).toBe(0);
    expect(await queue.countJobs('failed')).toBe(6);
    expect(await queue.countJobs('failed', { reason: 'timeout' })).toBe(4);
    expect(await queue.countJobs('failed', { name: 'send', errorContains: 'econnrefused' })).toBe(3);
    // The counts agree with what the bulk action then moves.
    expect(await queue.redrive({ filter: { errorContains: 'ECONNREFUSED' } })).toBe(3);
    expect(await queue.countJobs('failed', { errorContains: 'ECONNREFUSED' })).toBe(0);
  });

  it('rejects a bad state and failed-only filters on other states', async () => {
    await expect(queue.countJobs('gone' as never)).rejects.toThrow(InvalidArgumentError);
    await expect(queue.countJobs('delayed', { reason: 'timeout' })).rejects.toThrow(/reason and errorContains apply to failed jobs/);
    await expect(queue.countJobs('failed', { colour: 'red' } as never)).rejects.toThrow(/colour/);
  });
});
