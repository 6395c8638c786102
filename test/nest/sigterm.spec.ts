import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { Queue } from '../../lib/index.js';
import { testStore, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { redisUrl } from '../helpers/store.js';

const FIXTURE = join(process.cwd(), 'test', 'fixtures', 'nest-app.mjs');

/** A Nest app in a child process (test/fixtures/nest-app.mjs), with what it reported. */
async function startApp(config: Record<string, unknown>) {
  const child: ChildProcess = fork(FIXTURE, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const started = new Set<string>();
  const completed = new Set<string>();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.on('message', (m: { type: string; id?: string }) => {
    if (m.type === 'started') started.add(m.id!);
    if (m.type === 'completed') completed.add(m.id!);
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('Nest app process not ready within 20 s')), 20_000);
    child.on('message', (m: { type: string }) => {
      if (m.type === 'ready') {
        clearTimeout(timer);
        resolve();
      }
    });
    void exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`Nest app process exited with ${code} before it was ready`));
    });
  });
  return { child, started, completed, exited };
}

describe('SIGTERM to a Nest app with 50 jobs in flight (2 s shutdown timeout)', () => {
  it('completes the jobs that finish in time, releases the rest for a second app, leaves none active', async () => {
    const store = await testStore();
    const prefix = store.prefix;
    const queue = new Queue<{ ms: number }>('sleepers', { store });
    const config = { url: redisUrl(), prefix, queue: 'sleepers', concurrency: 50, shutdownTimeout: 2000 };
    const first = await startApp(config);
    try {
      // 25 jobs that finish within the shutdown timeout, 25 that would take 30 s.
      const jobs = await queue.addBulk(Array.from({ length: 50 }, (_, i) => ({ name: 'sleep', data: { ms: i % 2 === 0 ? 800 : 30_000 } })));
      const short = new Set(jobs.filter((_, i) => i % 2 === 0).map((j) => j.id));
      await waitFor(() => first.started.size === 50, { timeout: 10_000, message: 'all 50 jobs to start' });
      expect(first.completed.size).toBe(0);

      const signalled = Date.now();
      first.child.kill('SIGTERM');
      const exit = await first.exited;
      const took = Date.now() - signalled;
      expect(exit.signal === 'SIGTERM' || exit.code === 0).toBe(true);
      expect(took).toBeGreaterThanOrEqual(1500);
      expect(took).toBeLessThan(10_000);

      // The short jobs finished during shutdown; the long ones went back to waiting, attempt not spent.
      // (Read from Redis: the app's last IPC messages may not outlive its exit.)
      expect(new Set((await queue.getJobs('completed')).map((j) => j.id))).toEqual(short);
      const counts = await queue.getCounts();
      expect(counts).toMatchObject({ active: 0, completed: 25, waiting: 25, failed: 0 });
      for (const job of await queue.getJobs('waiting')) expect(job.attempt).toBe(0);

      const second = await startApp({ ...config, fast: true });
      try {
        await waitFor(async () => (await queue.getCounts()).completed === 50, { timeout: 10_000, message: 'the second app to finish the released jobs' });
        // Its completed events travel over IPC and may trail what Redis already shows.
        await waitFor(() => second.completed.size >= 25, { timeout: 10_000, message: "the second app's completed events" });
        expect([...second.completed].sort()).toEqual(jobs.filter((j) => !short.has(j.id)).map((j) => j.id).sort());
      } finally {
        second.child.kill('SIGTERM');
        await second.exited;
      }
      expect(await queue.verify()).toEqual([]);
      expect((await queue.getCounts()).active).toBe(0);
    } finally {
      if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
      await store.disconnect();
    }
  });
});
