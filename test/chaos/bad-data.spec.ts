import { redisUrl } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { scenario, type Scenario } from './support/scenario.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';

// Bad data in Redis and bad handler outcomes, run by a worker process: each
// ends as a readable dead letter (or a completion), and the process lives on.
// Shared test Redis, own key prefix.
describe('chaos: malformed data and bad handler outcomes', () => {
  let s: Scenario;
  beforeEach(async () => {
    s = await scenario(redisUrl(), { lockDuration: 2000, stalledInterval: 500, pollInterval: 500, concurrency: 4, maxPayloadBytes: 2000 });
  });
  afterEach(async () => {
    await s.dispose();
  });

  const raw = (args: string[]) => commandOf(s.store, 'test').sendCommand(args);
  const finished = (ids: string[]) =>
    waitFor(
      async () => {
        const jobs = await Promise.all(ids.map((id) => s.queue.getJob(id)));
        return jobs.every((j) => j === null || j.state === 'completed' || j.state === 'failed');
      },
      { timeout: 15_000, interval: 50, message: `jobs ${ids.join(', ')} finished` },
    );
  const deadLetter = async (id: string) => {
    const job = (await s.queue.getJob(id))!;
    return { state: job.state, reason: job.error?.reason, message: job.error?.message };
  };

  it('dead-letters broken JSON, oversized payloads and unknown names with a clear reason, cleans an index entry whose hash is gone', async () => {
    const k = keysOf(s.store, 'q');
    await s.queue.add('work', { mode: 'ok' }, { jobId: 'broken-json' });
    await raw(['HSET', k.job('broken-json'), 'data', '{"mode": "ok", ']);
    await s.queue.add('work', { mode: 'ok' }, { jobId: 'orphan-entry' });
    await raw(['DEL', k.job('orphan-entry')]);
    await s.queue.add('work', { mode: 'ok', padding: 'x'.repeat(5000) }, { jobId: 'too-large' });
    await s.queue.add('mystery', { mode: 'ok' }, { jobId: 'unknown-name' });
    await s.queue.add('work', { mode: 'ok' }, { jobId: 'healthy' });

    const worker = await s.worker();
    await finished(['broken-json', 'orphan-entry', 'too-large', 'unknown-name', 'healthy']);

    expect(await deadLetter('broken-json')).toEqual({ state: 'failed', reason: 'corrupt', message: expect.stringMatching(/broken-json cannot be decoded: data/) });
    expect(await deadLetter('too-large')).toEqual({ state: 'failed', reason: 'payload-too-large', message: expect.stringMatching(/over the worker's maxPayloadBytes \(2000\)/) });
    expect(await deadLetter('unknown-name')).toEqual({ state: 'failed', reason: 'no-handler', message: 'no handler for job name "mystery" in queue "q"' });
    expect(await s.queue.getJob('orphan-entry')).toBeNull();
    expect((await s.queue.getJob('healthy'))?.state).toBe('completed');
    expect(worker.alive).toBe(true);
    // NOTE: the job's name lived only in the deleted hash, so the per-name
    // waiting counter cannot be corrected when the orphan entry is dropped;
    // verify() names that drift, and only that.
    expect(await s.end()).toEqual(['meta n:work says 1 waiting, the indexes hold 0']);
  });

  it('turns non-Error throws, handlers that never settle, and unstorable results into clear failures without a crash', async () => {
    const worker = await s.worker();
    const add = (id: string, data: object, opts: object = {}) => s.queue.add('work', data, { jobId: id, ...opts });
    await add('throw-string', { mode: 'throw-string' });
    await add('throw-object', { mode: 'throw-object' });
    await add('throw-null', { mode: 'throw-null' });
    await add('never-timeout', { mode: 'never' }, { timeout: 300 });
    await add('never-deadline', { mode: 'never' }, { deadline: Date.now() + 600 });
    await add('undefined', { mode: 'undefined' });
    await add('circular', { mode: 'circular' });
    await add('bigint', { mode: 'bigint' });
    const ids = ['throw-string', 'throw-object', 'throw-null', 'never-timeout', 'never-deadline', 'undefined', 'circular', 'bigint'];
    await finished(ids);

    expect(await deadLetter('throw-string')).toEqual({ state: 'failed', reason: 'error', message: 'handler threw a non-Error value: plain string' });
    expect(await deadLetter('throw-object')).toEqual({ state: 'failed', reason: 'error', message: 'handler threw a non-Error value: {"code":42,"why":"an object"}' });
    expect(await deadLetter('throw-null')).toEqual({ state: 'failed', reason: 'error', message: 'handler threw a non-Error value: null' });
    expect(await deadLetter('never-timeout')).toEqual({ state: 'failed', reason: 'timeout', message: expect.stringMatching(/timeout of 300 ms/) });
    expect(await deadLetter('never-deadline')).toEqual({ state: 'failed', reason: 'deadline', message: expect.stringMatching(/past its deadline/) });
    expect(await deadLetter('circular')).toEqual({ state: 'failed', reason: 'result', message: expect.stringMatching(/cannot be stored as JSON/) });
    expect(await deadLetter('bigint')).toEqual({ state: 'failed', reason: 'result', message: expect.stringMatching(/cannot be stored as JSON.*BigInt/) });
    const undef = (await s.queue.getJob('undefined'))!;
    expect(undef.state).toBe('completed');
    expect(undef.result).toBeNull();

    await add('still-fine', { mode: 'ok' });
    await waitFor(() => worker.has('completed', 'still-fine'), { timeout: 10_000, interval: 20, message: 'worker still runs jobs' });
    expect(worker.alive).toBe(true);
    expect(await s.end()).toEqual([]);
  });
});
