import { JobTimeoutError } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

describe('job timeout', () => {
  const h = engineHarness();

  it('aborts job.signal past the timeout and fails the attempt with JobTimeoutError, then retries', async () => {
    const queue = h.queue('timeout');
    const reasons: unknown[] = [];
    h.worker('timeout', (job) => {
      if (job.attempt === 2) return 'fast enough';
      return new Promise(() => job.signal.addEventListener('abort', () => reasons.push(job.signal.reason)));
    });
    const job = await queue.add('slow', {}, { timeout: 100, attempts: 2 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed');
    expect(reasons).toHaveLength(1);
    expect(reasons[0]).toBeInstanceOf(JobTimeoutError);
    expect(await queue.getJob(job.id)).toMatchObject({ attempt: 2, result: 'fast enough', error: { code: 'JobTimeoutError' } });
  });

  it('frees the slot of a handler that never settles', async () => {
    const queue = h.queue('never');
    let runs = 0;
    h.worker('never', () => {
      runs += 1;
      return runs === 1 ? new Promise(() => undefined) : 'second job ran';
    });
    const stuck = await queue.add('stuck', {}, { timeout: 100 });
    const next = await queue.add('next', {});
    await waitFor(async () => (await queue.getJob(next.id))?.state === 'completed');
    expect(await queue.getJob(stuck.id)).toMatchObject({ state: 'failed', error: { reason: 'timeout' } });
  });
});
