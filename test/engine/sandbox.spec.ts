import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, SandboxCrashedError, UnknownOptionError, Worker, type Job, type WorkerOptions } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

const HANDLERS = new URL('../fixtures/sandbox/handlers.mjs', import.meta.url);
const CJS = fileURLToPath(new URL('../fixtures/sandbox/handler.cjs', import.meta.url));
const NAMED_ONLY = new URL('../fixtures/sandbox/named-only.mjs', import.meta.url);

/** Whether a process with this pid still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Sandboxed processors (lib/engine/sandbox/): a handler module run in worker
 * threads or child processes; the worker keeps the lease and writes every
 * outcome. The handler modules are plain JS under test/fixtures/sandbox.
 */
describe('sandboxed processors', () => {
  const h = engineHarness();
  const sandboxed = (queue: string, options: Omit<WorkerOptions, 'store'> = {}, file: string | URL = HANDLERS) => h.worker<unknown, unknown>(queue, file as never, options);
  const settled = (queue: ReturnType<typeof h.queue>, id: string, states = ['completed', 'failed', 'cancelled']) =>
    waitFor(async () => states.includes((await queue.getJob(id))?.state ?? ''), { timeout: 15_000, message: `job ${id} settled` });

  it.each(['threads', 'processes'] as const)('runs named and default handlers (%s); progress, log and updateData go through the lease', async (runner) => {
    const queue = h.queue(`plain-${runner}`);
    const worker = sandboxed(`plain-${runner}`, { sandbox: { runner }, concurrency: 2 });
    const progress: unknown[] = [];
    worker.on('progress', (_job, value) => progress.push(value));
    const reported = await queue.add('report', { step: 'first' });
    const other = await queue.add('anything', { n: 1 });
    await settled(queue, reported.id);
    await settled(queue, other.id);
    expect(await queue.getJob(reported.id)).toMatchObject({
      state: 'completed',
      progress: 50,
      data: { step: 'second' },
      result: { data: { step: 'second' }, name: 'report', queue: `plain-${runner}`, id: reported.id },
    });
    expect(await queue.getLogs(reported.id)).toEqual(['running attempt 1']);
    expect(progress).toEqual([50]);
    expect(await queue.getJob(other.id)).toMatchObject({ state: 'completed', result: { echo: { n: 1 }, attempt: 1 } });
  });

  it('runs a CommonJS module given as a path, for every job name', async () => {
    const queue = h.queue('cjs');
    sandboxed('cjs', {}, CJS);
    const job = await queue.add('double', 21);
    await settled(queue, job.id);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed', result: { cjs: true, doubled: 42 } });
  });

  it('keeps renewing leases while a handler burns 2 s of CPU: no job stalls, the event loop stays free', async () => {
    const queue = h.queue('cpu');
    // Leases of 1 s: one not renewed for that long is taken by the watcher's reaper (every 100 ms).
    // The watcher is paused: it claims nothing, but its reaper runs.
    const lease = { lockDuration: 1000, lockRenewTime: 250 };
    const watcher = h.worker('cpu', async () => 'never claimed', { ...lease, stalledInterval: 100 });
    await watcher.pause();
    const stalls: string[] = [];
    watcher.on('stalled', (id) => stalls.push(id));
    let lastTick = performance.now();
    let longestGap = 0;
    const ticker = setInterval(() => {
      const now = performance.now();
      longestGap = Math.max(longestGap, now - lastTick);
      lastTick = now;
    }, 20);
    try {
      const [burning, sleeping] = await queue.addBulk([
        { name: 'burn', data: { ms: 2000 } },
        { name: 'sleep', data: { ms: 2200 } },
      ]);
      sandboxed('cpu', { ...lease, concurrency: 2 });
      await settled(queue, burning!.id);
      await settled(queue, sleeping!.id);
      expect(await queue.getJob(burning!.id)).toMatchObject({ state: 'completed', attempt: 1, stalled: 0, result: { loops: true } });
      expect(await queue.getJob(sleeping!.id)).toMatchObject({ state: 'completed', attempt: 1, stalled: 0, result: 'slept' });
    } finally {
      clearInterval(ticker);
    }
    expect(stalls).toEqual([]);
    // A handler burning the CPU in this thread would have held it for 2,000 ms (and its lease would have expired).
    expect(longestGap).toBeLessThan(1000);
  });

  it.each(['threads', 'processes'] as const)('a handler calling process.exit(1) (%s) fails only its attempt; the retry and later jobs run in a fresh sandbox', async (runner) => {
    const queue = h.queue(`exit-${runner}`);
    const worker = sandboxed(`exit-${runner}`, { sandbox: { runner } });
    const failures: Error[] = [];
    worker.on('failed', (_job, error) => failures.push(error));
    const job = await queue.add('exit', {}, { attempts: 2 });
    await settled(queue, job.id);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed', attempt: 2, result: 'attempt 2' });
    expect(failures).toHaveLength(1);
    expect(failures[0]).toBeInstanceOf(SandboxCrashedError);
    expect(failures[0]!.message).toMatch(/exited with code 1/);
    const next = await queue.add('other', 'after');
    await settled(queue, next.id);
    expect(await queue.getJob(next.id)).toMatchObject({ state: 'completed', result: { echo: 'after' } });
  });

  it('a child process killed by SIGSEGV (a crash in native code) fails only that attempt; the retry runs in a new process', async () => {
    const queue = h.queue('segv');
    const worker = sandboxed('segv', { sandbox: { runner: 'processes' } });
    const failures: Error[] = [];
    worker.on('failed', (_job, error) => failures.push(error));
    const job = await queue.add('segfault', {}, { attempts: 2 });
    await settled(queue, job.id);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed', attempt: 2, result: 'attempt 2' });
    expect(failures[0]).toBeInstanceOf(SandboxCrashedError);
    expect(failures[0]!.message).toMatch(/was killed by SIGSEGV/);
  });

  it('a handler exhausting its memory limit (threads) fails its attempt, retried as its options say', async () => {
    const queue = h.queue('oom-threads');
    const worker = sandboxed('oom-threads', { sandbox: { maxMemoryMb: 48 } });
    const failures: Error[] = [];
    worker.on('failed', (_job, error) => failures.push(error));
    const job = await queue.add('hog', {}, { attempts: 2 });
    await settled(queue, job.id);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed', attempt: 2, result: 'attempt 2' });
    expect(failures[0]).toBeInstanceOf(SandboxCrashedError);
    expect(failures[0]!.message).toMatch(/ran out of memory \(maxMemoryMb 48\)/);
  }, 30_000);

  it('a handler exhausting its memory limit (processes: --max-old-space-size) fails its attempt, retried as its options say', async () => {
    // In a process of its own: V8's out-of-memory report on stderr would read to Jest as its worker running out of memory.
    const child = spawn(process.execPath, [fileURLToPath(new URL('../fixtures/sandbox-oom.mjs', import.meta.url)), JSON.stringify({ url: redisUrl(), prefix: uniquePrefix('oom') })], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    const report = JSON.parse(stdout.trim()) as { done: boolean; failures: { name: string; message: string }[]; job: unknown };
    expect(report.job).toEqual({ state: 'completed', attempt: 2, result: 'attempt 2' });
    expect(report.failures).toHaveLength(1);
    expect(report.failures[0]!.name).toBe('SandboxCrashedError');
    expect(report.failures[0]!.message).toMatch(/ran out of memory/);
    // The sandbox's own report, from V8, went to the fixture's stderr.
    expect(stderr).toMatch(/heap out of memory/);
  }, 40_000);

  it('an exception thrown outside the job (a timer) fails the attempt with its message; the last attempt dead-letters', async () => {
    const queue = h.queue('outside');
    sandboxed('outside');
    const job = await queue.add('throwsOutside', {}, { attempts: 1 });
    await settled(queue, job.id);
    const failed = await queue.getJob(job.id);
    expect(failed).toMatchObject({ state: 'failed', error: { code: 'SandboxCrashedError', reason: 'sandbox-crashed' } });
    expect(failed!.error!.message).toMatch(/thrown from a timer/);
  });

  it('errors keep their meaning across the boundary: UnrecoverableError dead-letters at once, code and stack are kept, a missing handler is no-handler', async () => {
    const queue = h.queue('errors');
    sandboxed('errors');
    const unrecoverable = await queue.add('unrecoverable', {}, { attempts: 5 });
    const coded = await queue.add('coded', {}, { attempts: 1 });
    await settled(queue, unrecoverable.id);
    await settled(queue, coded.id);
    expect(await queue.getJob(unrecoverable.id)).toMatchObject({ state: 'failed', attempt: 1, error: { reason: 'unrecoverable', message: 'bad input, do not retry' } });
    const codedJob = await queue.getJob(coded.id);
    expect(codedJob).toMatchObject({ state: 'failed', error: { code: 'E_DOWNSTREAM', message: 'downstream said no' } });
    expect(codedJob!.error!.stack).toMatch(/handlers\.mjs/);

    const named = h.queue('named-only');
    sandboxed('named-only', {}, NAMED_ONLY);
    const known = await named.add('known', {});
    const unknown = await named.add('unknown', {}, { attempts: 3 });
    await settled(named, known.id);
    await settled(named, unknown.id);
    expect(await named.getJob(known.id)).toMatchObject({ state: 'completed', result: 'known' });
    expect(await named.getJob(unknown.id)).toMatchObject({ state: 'failed', attempt: 1, error: { reason: 'no-handler' } });
  });

  it('cancels a sandboxed job: a handler listening to job.signal stops; one that never yields has its sandbox stopped', async () => {
    const queue = h.queue('cancel');
    const worker = sandboxed('cancel', { concurrency: 2, sandbox: { abortGraceMs: 200 } });
    const pids: Record<string, number> = {};
    worker.on('progress', (job, value) => (pids[job.name] = (value as { pid: number }).pid));
    const polite = await queue.add('waitForAbort', {});
    const stuck = await queue.add('stuck', {});
    await waitFor(() => pids.waitForAbort !== undefined && pids.stuck !== undefined, { message: 'both handlers running' });
    await queue.cancel(polite.id);
    await queue.cancel(stuck.id);
    await settled(queue, polite.id);
    await settled(queue, stuck.id);
    expect((await queue.getJob(polite.id))!.state).toBe('cancelled');
    expect((await queue.getJob(stuck.id))!.state).toBe('cancelled');
    // The pool is healthy afterwards: a new job runs.
    const next = await queue.add('other', 1);
    await settled(queue, next.id);
    expect((await queue.getJob(next.id))!.state).toBe('completed');
  });

  it('times out a CPU-bound sandboxed job and retries it; the stuck sandbox is replaced', async () => {
    const queue = h.queue('timeout');
    const worker = sandboxed('timeout', { sandbox: { abortGraceMs: 100 } });
    const failures: string[] = [];
    worker.on('failed', (_job, error, next) => failures.push(`${error.name}:${next}`));
    const job = await queue.add('stuck', {}, { timeout: 300, attempts: 2 });
    await settled(queue, job.id);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'failed', attempt: 2, error: { code: 'JobTimeoutError' } });
    expect(failures).toEqual(['JobTimeoutError:retry', 'JobTimeoutError:dead']);
    const next = await queue.add('other', 2);
    await settled(queue, next.id);
    expect((await queue.getJob(next.id))!.state).toBe('completed');
  });

  it('shutdown with a sandboxed job running hands the job back and stops its child process', async () => {
    const queue = h.queue('shutdown');
    const worker = new Worker('shutdown', HANDLERS, { store: h.store, sandbox: { runner: 'processes', abortGraceMs: 100 } });
    let pid = 0;
    worker.on('progress', (_job, value) => (pid = (value as { pid: number }).pid));
    const job: Job = await queue.add('ignoreAbort', {});
    await waitFor(() => pid > 0, { message: 'the handler reported its pid' });
    expect(pid).not.toBe(process.pid);
    await worker.close({ timeout: 100 });
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'waiting', attempt: 0 });
    expect(alive(pid)).toBe(false);
  });

  it('refuses bad sandbox setups with errors that name the field', () => {
    const store = h.store;
    expect(() => new Worker('bad', HANDLERS, { store, sandbox: { runer: 'threads' } as never })).toThrow(UnknownOptionError);
    expect(() => new Worker('bad', HANDLERS, { store, sandbox: { runer: 'threads' } as never })).toThrow(/runner/);
    expect(() => new Worker('bad', HANDLERS, { store, sandbox: { runner: 'fibers' } as never })).toThrow(/'threads' or 'processes'/);
    expect(() => new Worker('bad', HANDLERS, { store, sandbox: { maxMemoryMb: 0 } })).toThrow(/maxMemoryMb/);
    expect(() => new Worker('bad', async () => 1, { store, sandbox: {} })).toThrow(/applies to a handler file/);
    expect(() => new Worker('bad', '/nowhere/handler.mjs', { store })).toThrow(InvalidArgumentError);
    expect(() => new Worker('bad', '/nowhere/handler.mjs', { store })).toThrow(/does not exist/);
    expect(() => new Worker('bad', 42 as never, { store })).toThrow(/path or file: URL/);
  });
});
