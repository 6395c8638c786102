import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { redisUrl, uniquePrefix } from '../helpers/store.js';

const FIXTURE = join(process.cwd(), 'test', 'fixtures', 'di-error-app.mjs');
/** A process with nothing left open ends within a second or two of its error; this bound is generous for a loaded machine. */
const EXIT_WITHIN_MS = 20_000;

/** Runs the fixture app; resolves with what it printed and how it ended, or with `hung` after the bound (the child is then killed). */
function runApp(config: Record<string, unknown>): Promise<{ out: string; code: number | null; hung: boolean }> {
  const child = spawn(process.execPath, [FIXTURE, JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve({ out, code: null, hung: true });
    }, EXIT_WITHIN_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ out, code, hung: false });
    });
  });
}

// A provider's DI error stops compile() after Spool's module was created:
// nothing Spool opened may keep the process alive (a jest run once hung 37 minutes on it).
describe('a Nest bootstrap that fails on another provider\'s missing dependency', () => {
  it.each([
    ['a producer-only app', false],
    ['an app with a processor', true],
  ])('%s: the process reports the DI error and exits by itself', async (_what, processor) => {
    const { out, code, hung } = await runApp({ url: redisUrl(), prefix: uniquePrefix('di'), queue: 'signups', processor });
    expect(hung).toBe(false);
    expect(code).toBe(0);
    const report = JSON.parse(out.trim().split('\n').pop()!) as { error?: string };
    expect(report.error).toMatch(/^UnknownDependenciesException: Nest can't resolve dependencies of the SignupService \(SpoolQueue:signups, \?\)/);
  }, 40_000);
});
