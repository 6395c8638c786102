import { FlowProducer, JobFailedError, WaitTimeoutError } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';

describe('waiting for a job to finish', () => {
  const h = engineHarness();

  it('resolves with the result as soon as the job completes (woken by the done channel, not the poll)', async () => {
    const queue = h.queue('w-ok');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h.worker('w-ok', async (job) => {
      await gate;
      return { doubled: (job.data as { n: number }).n * 2 };
    });
    const job = await queue.add('double', { n: 21 });
    const waiting = job.waitUntilFinished({ timeout: 5000 });
    const viaQueue = queue.waitFor(job.id, { timeout: 5000 });
    // Give both waits time to subscribe and mark the job before it finishes.
    await new Promise((r) => setImmediate(r));
    const finishedAt = Date.now();
    setTimeout(release, 50);
    await expect(waiting).resolves.toEqual({ doubled: 42 });
    await expect(viaQueue).resolves.toEqual({ doubled: 42 });
    // The fallback poll runs every second: a wake-up well under it came from the channel.
    expect(Date.now() - finishedAt).toBeLessThan(900);
  });

  it('rejects with the failure of a dead-lettered job', async () => {
    const queue = h.queue('w-fail');
    h.worker('w-fail', () => {
      throw new Error('nope');
    });
    const job = await queue.add('x', {});
    const err = await job.waitUntilFinished({ timeout: 5000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(JobFailedError);
    expect(err).toMatchObject({ reason: 'error', jobId: job.id, message: expect.stringContaining('nope') });
  });

  it('resolves at once for a job already finished, and rejects with WaitTimeoutError when it does not finish in time', async () => {
    const queue = h.queue('w-time');
    const flows = new FlowProducer({ store: h.store });
    const tree = await flows.add({ name: 'p', queueName: 'w-time', children: [{ name: 'k', queueName: 'w-time-kids' }] });
    h.queue('w-time-kids');
    const started = Date.now();
    const err = await tree.job.waitUntilFinished({ timeout: 200 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await queue.getJob(tree.job.id)).toMatchObject({ state: 'waiting-children' });
    expect(await queue.cancel(tree.job.id)).toBe('cancelled');
    await expect(queue.waitFor(tree.job.id, { timeout: 1000 })).rejects.toMatchObject({ name: 'JobCancelledError' });
  });
});
