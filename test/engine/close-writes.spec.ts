import { Queue, RedisStore, Worker, type ActiveJob } from '../../lib/index.js';
import { logRecorder } from '../helpers/log-recorder.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { waitFor } from '../helpers/wait-for.js';

/**
 * worker.close({ timeout }) while Redis goes away: it returns once every
 * outcome write landed or was given up, and says which. A private
 * redis-server (AOF, so a restart keeps the jobs) is stopped and restarted
 * by pid.
 */
describe('worker.close({ timeout }) with Redis unreachable', () => {
  let server: RedisServer;
  let store: RedisStore;
  let rec: ReturnType<typeof logRecorder>;

  beforeEach(async () => {
    server = await RedisServer.start({ appendonly: true });
    rec = logRecorder();
    store = new RedisStore({ url: server.url }, { prefix: 'close', logger: rec.logger });
    await store.connect();
  });
  afterEach(async () => {
    await store.disconnect();
    await server.dispose();
  });

  /** A worker whose handler runs until released (job 'finish') or until aborted (job 'hang'). */
  function gatedWorker(): { worker: Worker; release: () => void } {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = new Worker(
      'close',
      async (job: ActiveJob) => {
        if (job.name === 'finish') return gate.then(() => 'done');
        return new Promise((_, reject) => job.signal.addEventListener('abort', () => reject(job.signal.reason as Error)));
      },
      { store, logger: rec.logger, concurrency: 2 },
    );
    return { worker, release };
  }

  /** The job's state once the store answers again. */
  async function stateAfterRestart(queue: Queue, id: string): Promise<string | undefined> {
    let state: string | undefined;
    await waitFor(async () => {
      state = (await queue.getJob(id).catch(() => null))?.state;
      return state !== undefined;
    }, { message: 'the store to answer again', timeout: 15_000 });
    return state;
  }

  it('gives up what Redis never took, says which, and retries nothing after it returned', async () => {
    const queue = new Queue('close', { store });
    const finished = await queue.add('finish', {});
    const hung = await queue.add('hang', {});
    const { worker, release } = gatedWorker();
    await waitFor(() => worker.activeCount === 2, { message: 'both jobs to start' });
    await server.stop();
    const closing = worker.close({ timeout: 800 });
    release(); // 'finish' returns now: its completion write meets a Redis that is gone, and is retried
    const result = await closing;
    expect(result).toEqual({ timedOut: true, handedBack: [], written: [], givenUp: expect.arrayContaining([finished.id, hung.id]) });
    expect(result.givenUp).toHaveLength(2);
    const warnings = rec.at('warn').join('\n');
    expect(warnings).toContain('1 job of queue "close" still running after 0.8 s');
    expect(warnings).toContain('the outcome of 1 job of queue "close" not written after 0.8 s');
    expect(warnings).toMatch(/gave up writing what became of 2 jobs of queue "close" \(.*\): they stay active until their leases expire/);

    // Nothing of the closed worker writes once Redis is back: both jobs are as close() said, active.
    await server.restart();
    expect(await stateAfterRestart(queue, finished.id)).toBe('active');
    // Longer than the longest retry pause (2 s): a write still being retried would have landed.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect((await queue.getJob(finished.id))?.state).toBe('active');
    expect((await queue.getJob(hung.id))?.state).toBe('active');
  });

  it('waits for a write that lands before the timeout ends, and says it was written', async () => {
    const queue = new Queue('close', { store });
    const finished = await queue.add('finish', {});
    const { worker, release } = gatedWorker();
    await waitFor(() => worker.activeCount === 1, { message: 'the job to start' });
    await server.stop();
    const closing = worker.close({ timeout: 10_000 });
    release();
    // Redis comes back while the completion is being retried.
    setTimeout(() => void server.restart(), 300);
    const result = await closing;
    expect(result).toEqual({ timedOut: false, handedBack: [], written: [finished.id], givenUp: [] });
    expect((await queue.getJob(finished.id))?.state).toBe('completed');
  });
});
