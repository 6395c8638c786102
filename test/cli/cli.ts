import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue, type RedisStore } from '../../lib/index.js';
import { redisUrl } from '../helpers/store.js';

/** The built bin (jest's global setup builds dist/ when lib/ is newer), run as `spool` is: a separate node process. */
export const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'cjs', 'cli', 'main.js');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Env for the CLI: the run's Redis and a test's prefix, nothing inherited that could point it elsewhere. */
export function cliEnv(prefix: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { REDIS_URL: _url, SPOOL_PREFIX: _prefix, ...rest } = process.env;
  return { ...rest, REDIS_URL: redisUrl(), SPOOL_PREFIX: prefix, ...extra };
}

export function startCli(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [BIN, ...args], { env, stdio: 'pipe' });
}

/** Runs `spool args` to its end (stdin closed: not a terminal), with a bound. */
export function runCli(args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 20_000): Promise<CliRun> {
  const child = startCli(args, env);
  child.stdin.end();
  return collect(child, timeoutMs);
}

export function collect(child: ChildProcessWithoutNullStreams, timeoutMs = 20_000): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`spool did not exit within ${timeoutMs} ms; stdout: ${stdout} stderr: ${stderr}`));
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** No stack trace, only `spool: ...` lines (and store warnings). */
export function expectCleanError(run: CliRun, pattern: RegExp): void {
  expect(run.stderr).toMatch(pattern);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  for (const line of run.stderr.trim().split('\n')) expect(line).toMatch(/^spool: |^\(add --help for usage\)$/);
}

/** Dead letters made through the real transitions: add, claim, fail with a reason and message. */
export async function deadLetters(store: RedisStore, queue: Queue, jobs: readonly { name: string; reason: string; message: string }[]): Promise<string[]> {
  const added = await queue.addBulk(jobs.map((j, i) => ({ name: j.name, data: { n: i } })));
  const { jobs: claimed } = await store.claim(queue.name, { count: jobs.length, workerId: 'w', lockMs: 60_000 });
  const byId = new Map(added.map((job, i) => [job.id, jobs[i]!]));
  for (const r of claimed) {
    const j = byId.get(r.id)!;
    await store.log(queue.name, { id: r.id, token: r.token! }, `sending ${j.name}`, 100);
    await store.fail(queue.name, { id: r.id, token: r.token! }, { retryDelay: -1, reason: j.reason, message: j.message, stack: `Error: ${j.message}\n    at handler`, code: 'Error' });
  }
  return added.map((j) => j.id);
}

export function parseNdjson(text: string): Record<string, unknown>[] {
  return text
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
