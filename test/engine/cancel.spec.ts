import { JobCancelledError, type ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';

describe('cancelling a running job', () => {
  const h = engineHarness();

  it("fires the holder's job.signal and finishes the job as cancelled", async () => {
    const queue = h.queue('cancel-active');
    let reason: unknown;
    const worker = h.worker('cancel-active', (job) =>
      new Promise((_, reject) =>
        job.signal.addEventListener('abort', () => {
          reason = job.signal.reason;
          reject(job.signal.reason);
        }),
      ),
    );
    const started = nextEvent<[ActiveJob]>(worker, 'active');
    const cancelled = nextEvent<[ActiveJob]>(worker, 'cancelled');
    const job = await queue.add('long', {}, { attempts: 5 });
    await started;
    expect(await queue.cancel(job.id)).toBe('cancelling');
    const [ended] = await cancelled;
    expect(ended.id).toBe(job.id);
    expect(reason).toBeInstanceOf(JobCancelledError);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'cancelled', attempt: 1 });
  });

  it('keeps the job cancelled even if the handler completes anyway', async () => {
    const queue = h.queue('cancel-ignored');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const worker = h.worker('cancel-ignored', async () => {
      await gate;
      return 'done anyway';
    });
    const started = nextEvent(worker, 'active');
    const job = await queue.add('x', {});
    await started;
    await queue.cancel(job.id);
    await waitFor(async () => (await queue.getJob(job.id))?.cancelRequested === true);
    release();
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'cancelled');
    expect((await queue.getJob(job.id))?.result).toBe('done anyway');
  });
});
