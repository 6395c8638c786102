import { DelayedError, InvalidArgumentError, type ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';

/** A handler that throws DelayedError runs its job again later, attempt not spent, without holding the queue. */
describe('DelayedError', () => {
  const h = engineHarness();

  it('puts the job back in delayed for that long, attempt not spent; the queue goes on meanwhile', async () => {
    const queue = h.queue<{ step: string }>('steps');
    const runs: { id: string; step: string; attempt: number; at: number }[] = [];
    const worker = h.worker<{ step: string }>('steps', async (job) => {
      runs.push({ id: job.id, step: job.data.step, attempt: job.attempt, at: Date.now() });
      if (job.data.step === 'start') {
        await job.updateData({ step: 'resume' });
        throw new DelayedError(1500);
      }
      return job.data.step;
    }, { concurrency: 1 });
    const delayed = nextEvent<[ActiveJob, number]>(worker, 'delayed');
    const stepped = await queue.add('import', { step: 'start' }); // one attempt: a DelayedError does not spend it
    const [delayedJob, delay] = await delayed;
    expect([delayedJob.id, delay]).toEqual([stepped.id, 1500]);
    expect(await queue.getJob(stepped.id)).toMatchObject({ state: 'delayed', attempt: 0, data: { step: 'resume' } });

    // Not a throttle: another job of the queue starts at once.
    const other = await queue.add('other', { step: 'other' });
    await waitFor(async () => (await queue.getJob(other.id))?.state === 'completed', { timeout: 1000, message: 'the other job done while the first waits' });

    await waitFor(async () => (await queue.getJob(stepped.id))?.state === 'completed', { timeout: 5000, message: 'the delayed job run again' });
    expect(await queue.getJob(stepped.id)).toMatchObject({ result: 'resume', attempt: 1, maxAttempts: 1 });
    const mine = runs.filter((r) => r.id === stepped.id);
    expect(mine.map((r) => [r.step, r.attempt])).toEqual([['start', 1], ['resume', 1]]);
    expect(mine[1]!.at - mine[0]!.at).toBeGreaterThanOrEqual(1490);
  });

  it('takes ms or a Date and refuses anything else, naming the argument', () => {
    expect(new DelayedError(5000).delay).toBe(5000);
    expect(new DelayedError(new Date(Date.now() - 1000)).delay).toBe(0);
    expect(() => new DelayedError(-1)).toThrow(InvalidArgumentError);
    expect(() => new DelayedError(1.5)).toThrow(/DelayedError delay must be a whole number of ms >= 0 or a valid Date, got 1.5/);
    expect(() => new DelayedError(new Date(Number.NaN))).toThrow(/got an invalid Date/);
  });
});
