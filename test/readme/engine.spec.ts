import { JobFailedError, Queue, RedisStore, UnrecoverableError, Worker, type ActiveJob } from '../../lib/index.js';
import { nextEvent } from '../helpers/wait-for.js';
import { redisUrl, silentLogger, uniquePrefix } from '../helpers/store.js';

/**
 * docs/guide/concepts.md "The engine in one example", as written there: only the URL and
 * prefix come from the harness, console.warn is collected instead of
 * printed, and the test waits for the jobs before it closes the worker.
 */
describe('README engine example', () => {
  it('sends, refuses an invalid domain without retrying, and cancels a delayed job by its own id', async () => {
    const store = new RedisStore({ url: redisUrl() }, { prefix: uniquePrefix('readme'), logger: silentLogger });
    await store.connect();

    const queue = new Queue<{ to: string }, string>('emails', { store });
    const worker = new Worker<{ to: string }, string>(
      'emails',
      async (job) => {
        if (job.data.to.endsWith('.invalid')) throw new UnrecoverableError('no such domain');
        job.signal.throwIfAborted(); // cancel, lease loss, timeout and shutdown abort it
        return `sent to ${job.data.to}`;
      },
      { store, concurrency: 10 },
    );
    try {
      const warned: unknown[][] = [];
      const warn = (...args: unknown[]) => warned.push(args);
      worker.on('failed', (job, error, next) => warn(job.id, error.message, next));

      const welcome = await queue.add('welcome', { to: 'ada@example.com' }, { attempts: 5, backoff: { type: 'exponential', delay: 1000, jitter: 1 } });
      const reminder = await queue.add('reminder', { to: 'ada@example.com' }, { jobId: 'reminder:ada', delay: 86_400_000 });
      expect(reminder.id).toBe('reminder:ada');
      expect(await queue.cancel('reminder:ada')).toBe('cancelled'); // the caller's id is enough

      // What the README promises: the return value is the result...
      expect(await welcome.waitUntilFinished({ timeout: 10_000 })).toBe('sent to ada@example.com');
      expect((await queue.getJob('reminder:ada'))?.state).toBe('cancelled');
      // ...and an UnrecoverableError dead-letters at once whatever `attempts` says.
      const failed = nextEvent<[ActiveJob, Error, string]>(worker, 'failed', 10_000);
      const bounce = await queue.add('welcome', { to: 'ada@example.invalid' }, { attempts: 5 });
      const [job, error, next] = await failed;
      expect([job.id, error.message, next]).toEqual([bounce.id, 'no such domain', 'dead']);
      await expect(bounce.waitUntilFinished({ timeout: 10_000 })).rejects.toBeInstanceOf(JobFailedError);
      expect((await queue.getJob(bounce.id))?.attempt).toBe(1);
      expect(warned).toEqual([[bounce.id, 'no such domain', 'dead']]);
    } finally {
      await worker.close(); // finishes running jobs (or hands them back), claims nothing new
    }
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });
});
