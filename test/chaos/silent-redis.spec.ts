import { CommandTimeoutError, Queue, RedisStore, RedisUnavailableError, Worker } from '../../lib/index.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

// A Redis that accepts commands and never answers: the process is stopped
// with SIGSTOP, so its sockets stay open and take what is sent (like a link
// that drops packets without a reset). Before commandTimeoutMs, add() waited
// until TCP gave up. Own redis-server, continued (SIGCONT) and stopped by pid.
const TIMEOUT = 500;
/** How long the test waits for a call before calling it hung: well past TIMEOUT, well short of TCP's minutes. */
const HUNG = 5000;

/** The call's error (or 'hung' when it neither resolves nor rejects within HUNG ms) and how long it took. */
async function outcome(call: Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = performance.now();
  const hung = new Promise((resolve) => setTimeout(() => resolve('hung'), HUNG).unref());
  const error = await Promise.race([call.then(() => 'resolved', (err: unknown) => err), hung]);
  return { error, ms: performance.now() - started };
}

describe('chaos: a Redis that stops answering (SIGSTOP)', () => {
  let server: RedisServer;
  let store: RedisStore;
  beforeEach(async () => {
    server = await RedisServer.start();
    store = new RedisStore({ url: server.url, prefix: uniquePrefix('silent'), logger: silentLogger, commandTimeoutMs: TIMEOUT });
    await store.connect();
  });
  afterEach(async () => {
    server.resume();
    await store.disconnect();
    await server.dispose();
  });

  it('add() and reads reject within about commandTimeoutMs with CommandTimeoutError; the same jobId adds the job once after', async () => {
    const queue = new Queue('q', { store });
    await queue.add('x', { n: 1 }, { jobId: 'before' });
    server.pause();
    const add = await outcome(queue.add('x', { n: 2 }, { jobId: 'during' }));
    const read = await outcome(queue.getJob('before'));
    server.resume();

    expect(add.error).toBeInstanceOf(CommandTimeoutError);
    // Every handler of an unreachable Redis (workers, the HTTP filter's 503) treats it as one, and it is retryable.
    expect(add.error).toBeInstanceOf(RedisUnavailableError);
    expect((add.error as CommandTimeoutError).permanent).toBe(false);
    expect((add.error as Error).message).toMatch(/^script add: Redis gave no reply within 500 ms \(commandTimeoutMs\); the command may or may not have taken effect\. Retry it: an add with the same jobId is idempotent/);
    expect(add.ms).toBeGreaterThanOrEqual(TIMEOUT - 20);
    expect(add.ms).toBeLessThan(TIMEOUT + 1500);
    expect(read.error).toBeInstanceOf(CommandTimeoutError);
    expect((read.error as Error).message).toMatch(/^getJob: Redis gave no reply within 500 ms/);

    // Once Redis answers again, what the caller is told to do works: the same jobId, added once whatever became of the first try.
    const again = await queue.add('x', { n: 2 }, { jobId: 'during' });
    expect(again.id).toBe('during');
    expect(await queue.getCounts()).toMatchObject({ waiting: 2 });
    expect(await queue.verify()).toEqual([]);
  });

  it('a worker retries a completion that timed out, and the job completes once, when Redis answers again', async () => {
    const queue = new Queue('w', { store });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const worker = new Worker('w', async () => {
      runs += 1;
      await gate;
      return 'done';
    }, { store, concurrency: 1, lockDuration: 30_000, pollInterval: 60_000 });
    const errors: Error[] = [];
    worker.on('error', (err) => errors.push(err));
    try {
      const job = await queue.add('x', {}, { jobId: 'slow' });
      await waitFor(() => runs === 1, { message: 'the job started' });
      server.pause();
      release();
      // The completion write meets the silent server: reported as retried, not dropped, and not permanent.
      await waitFor(() => errors.some((e) => e instanceof CommandTimeoutError && /script complete/.test(e.message)), {
        timeout: HUNG,
        message: 'the completion timed out and is retried',
      });
      server.resume();
      await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { timeout: 10_000, interval: 50, message: 'the job completed' });
      expect(runs).toBe(1);
      expect(errors.every((e) => e instanceof RedisUnavailableError)).toBe(true);
      expect(await queue.verify()).toEqual([]);
    } finally {
      server.resume();
      release();
      await worker.close({ timeout: 5000 });
    }
  });
});
