import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** spool/testing from the built package, by name, as an application loads it (CommonJS and ESM). */
const root = fileURLToPath(new URL('../..', import.meta.url));

function runNode(script: string): { stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ['-e', script], { cwd: root, encoding: 'utf8', timeout: 20_000 });
  return { stdout: result.stdout, stderr: result.stderr };
}

describe('spool/testing entry point', () => {
  it('require and import give the same MemoryStore, MemoryClock and QueueTesting, and a job runs on it', () => {
    const run = runNode(`
      const required = require('spool/testing');
      const { Queue, Worker } = require('spool');
      import('spool/testing').then(async (imported) => {
        const names = ['MemoryStore', 'MemoryClock', 'MemoryNotify', 'QueueTesting'];
        const same = names.map((n) => typeof required[n] === 'function' && imported[n] === required[n]);
        const store = new imported.MemoryStore({ clock: 'manual' });
        const queue = new Queue('q', { store });
        const worker = new Worker('q', async (job) => job.data.n * 2, { store });
        const job = await queue.add('x', { n: 21 }, { delay: 1000 });
        await store.clock.advance(1000);
        const result = await queue.waitFor(job.id, { timeout: 5000 });
        await worker.close();
        console.log(JSON.stringify({ same, result }));
      });`);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ same: [true, true, true, true], result: 42 });
  });
});
