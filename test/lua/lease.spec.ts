import { Queue, type RedisStore } from '../../lib/index.js';
import { testStore } from '../helpers/store.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';

/** Lease tokens are checked inside every script that writes to an active job (DESIGN invariant 2). */
describe('lease token enforcement', () => {
  let store: RedisStore;
  let queue: Queue;
  const fetch = (workerId: string) => ({ count: 1, workerId, lockMs: 10_000 });

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue('lease', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  async function claimOne(workerId = 'w1') {
    const [record] = await store.claim('lease', fetch(workerId)).then((o) => o.jobs);
    if (!record?.token) throw new Error('nothing claimed');
    return { id: record.id, token: record.token };
  }

  it('gives every claim of a job a new token, even by the same worker', async () => {
    await queue.add('a', {});
    const first = await claimOne('w1');
    expect(await store.release('lease', first)).toBe('released');
    const second = await claimOne('w1');
    expect(second.id).toBe(first.id);
    expect(second.token).not.toBe(first.token);
    expect(await store.release('lease', first)).toBe('lost');
    expect(await store.release('lease', second)).toBe('released');
  });

  it('refuses complete, fail, extend, progress and log with a stale token, and changes nothing', async () => {
    const job = await queue.add('a', { n: 1 });
    const lease = await claimOne();
    const stale = { id: job.id, token: `${lease.token}x` };
    const before = await store.getJob('lease', job.id);

    expect((await store.complete('lease', stale, '1', fetch('w1'))).status).toBe('lost');
    expect((await store.fail('lease', stale, { retryDelay: 0, reason: 'error', message: 'm', stack: '', code: 'E' })).status).toBe('lost');
    expect(await store.extend('lease', 10_000, [stale])).toEqual(['lost']);
    expect(await store.progress('lease', stale, '50')).toBe(false);
    expect(await store.log('lease', stale, 'line', 10)).toBeNull();

    expect(await store.getJob('lease', job.id)).toEqual(before);
    expect(await store.getLogs('lease', job.id)).toEqual([]);
    expect((await store.complete('lease', lease, '1', fetch('w1'))).status).toBe('completed');
  });

  it('refuses the old holder once the job was reaped and re-claimed', async () => {
    const job = await queue.add('a', {});
    const [first] = await store.claim('lease', { count: 1, workerId: 'old', lockMs: 1 }).then((o) => o.jobs);
    await new Promise((r) => setTimeout(r, 5));
    expect(await store.reap('lease', 5, 100)).toEqual([{ id: job.id, state: 'waiting' }]);
    const second = await claimOne('new');
    expect((await store.complete('lease', { id: job.id, token: first!.token! }, '"old"', fetch('old'))).status).toBe('lost');
    expect((await store.complete('lease', second, '"new"', fetch('new'))).status).toBe('completed');
    expect((await queue.getJob(job.id))?.result).toBe('new');
  });

  it('answers a repeated complete of the same token idempotently (lost reply)', async () => {
    const job = await queue.add('a', {});
    const lease = await claimOne();
    expect((await store.complete('lease', lease, '7', fetch('w1'))).status).toBe('completed');
    expect(await store.complete('lease', lease, '7', fetch('w1'))).toEqual({ status: 'already', state: 'completed', next: [] });
    expect(await store.getCounts('lease')).toMatchObject({ completed: 1, active: 0 });
    expect((await queue.getJob(job.id))?.result).toBe(7);
  });

  it('keeps a finished lease spent in the job hash: no token matches it, the job shows none', async () => {
    const job = await queue.add('a', {}, { attempts: 2 });
    const lease = await claimOne();
    const failure = { retryDelay: 0, reason: 'error', message: 'boom', stack: '', code: 'Error' };
    expect((await store.fail('lease', lease, failure)).status).toBe('moved');
    const again = await claimOne();
    expect((await store.complete('lease', again, '1', fetch('w1'))).status).toBe('completed');
    // The field keeps the token with '!' appended (lua/includes/finish SPOOL_SPENT); no ft field is written.
    const raw = (await commandOf(store).sendCommand(['HMGET', keysOf(store, 'lease').job(job.id), 'token', 'ft'])) as (string | null)[];
    expect(raw).toEqual([`${again.token}!`, null]);
    expect((await store.getJob('lease', job.id))?.token).toBeUndefined();
    for (const holder of [lease, again, { id: job.id, token: `${again.token}!` }]) {
      expect(await store.log('lease', holder, 'line', 10)).toBeNull();
      expect(await store.progress('lease', holder, '1')).toBe(false);
      expect(await store.extend('lease', 10_000, [holder])).toEqual(['lost']);
    }
    expect((await store.complete('lease', { id: job.id, token: `${again.token}!` }, '2', fetch('w1'))).status).toBe('lost');
    expect(await store.complete('lease', again, '1', fetch('w1'))).toMatchObject({ status: 'already', state: 'completed' });
  });

  it('answers a repeated fail of the same token idempotently', async () => {
    await queue.add('a', {}, { attempts: 3 });
    const lease = await claimOne();
    const failure = { retryDelay: 0, reason: 'error', message: 'boom', stack: '', code: 'Error' };
    expect(await store.fail('lease', lease, failure)).toEqual({ status: 'moved', state: 'waiting', runAt: expect.any(Number) });
    expect(await store.fail('lease', lease, failure)).toMatchObject({ status: 'already', state: 'waiting' });
    expect(await store.getCounts('lease')).toMatchObject({ waiting: 1, active: 0 });
  });

  it('renews every lease of a worker in one call and reports lost ones', async () => {
    await queue.addBulk([{ name: 'a', data: 1 }, { name: 'b', data: 2 }, { name: 'c', data: 3 }]);
    const leases = (await store.claim('lease', { count: 3, workerId: 'w', lockMs: 50 }).then((o) => o.jobs)).map((r) => ({ id: r.id, token: r.token! }));
    await store.cancel('lease', leases[1]!.id);
    const gone = { id: leases[2]!.id, token: 'someone-else:1' };
    const outcomes = await store.extend('lease', 60_000, [leases[0]!, leases[1]!, gone]);
    expect(outcomes).toEqual(['renewed', 'cancel-requested', 'lost']);
    // Renewed leases outlive their original 50 ms; the one renewed with a wrong token does not.
    await new Promise((r) => setTimeout(r, 80));
    const reaped = await store.reap('lease', 1, 100);
    expect(reaped).toEqual([{ id: leases[2]!.id, state: 'waiting' }]);
    const done = { count: 0, workerId: 'w', lockMs: 1 };
    expect((await store.complete('lease', leases[0]!, 'null', done)).status).toBe('completed');
    expect((await store.complete('lease', leases[1]!, 'null', done)).status).toBe('cancelled');
    expect((await store.complete('lease', leases[2]!, 'null', done)).status).toBe('lost');
  });

  it('checks each token of a batched complete on its own: the stale one is reported lost and left untouched', async () => {
    const jobs = await queue.addBulk([{ name: 'a', data: 1 }, { name: 'a', data: 2 }, { name: 'a', data: 3 }, { name: 'a', data: 4 }]);
    const claimed = (await store.claim('lease', { count: 3, workerId: 'w1', lockMs: 10_000 })).jobs.map((r) => ({ id: r.id, token: r.token! }));
    expect(claimed).toHaveLength(3);
    const stale = { id: claimed[1]!.id, token: `${claimed[1]!.token}x` };
    const before = await store.getJob('lease', stale.id);
    const outcome = await store.completeMany('lease', [
      { lease: claimed[0]!, result: '"r0"', durationMs: 3 },
      { lease: stale, result: '"never"' },
      { lease: claimed[2]!, result: '"r2"' },
    ], { count: 3, workerId: 'w1', lockMs: 10_000 });
    expect(outcome.statuses).toEqual([{ status: 'completed' }, { status: 'lost' }, { status: 'completed' }]);
    // Three slots freed, one job left waiting: the same call claimed it.
    expect(outcome.next.map((r) => r.id)).toEqual([jobs[3]!.id]);
    expect(await store.getJob('lease', stale.id)).toEqual(before);
    expect((await store.getJob('lease', claimed[0]!.id))?.result).toBe('"r0"');
    expect(await store.getCounts('lease')).toMatchObject({ completed: 2, active: 2, waiting: 0 });
    // A retried batch (its reply lost) is answered per job without writing twice.
    const again = await store.completeMany('lease', [{ lease: claimed[0]!, result: '"r0"' }], { count: 0, workerId: 'w1', lockMs: 10_000 });
    expect(again.statuses).toEqual([{ status: 'already', state: 'completed' }]);
    for (const lease of [claimed[1]!, { id: outcome.next[0]!.id, token: outcome.next[0]!.token! }]) {
      expect((await store.complete('lease', lease, '1', { count: 0, workerId: 'w1', lockMs: 10_000 })).status).toBe('completed');
    }
  });
});
