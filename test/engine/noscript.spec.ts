import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf } from '../helpers/redis-access.js';

describe('SCRIPT FLUSH while jobs run', () => {
  const h = engineHarness();

  it('is transparent: every job completes once', async () => {
    const queue = h.queue<number>('flush');
    const runs = new Map<string, number>();
    h.worker<number>('flush', async (job) => void runs.set(job.id, (runs.get(job.id) ?? 0) + 1), { concurrency: 8 });
    const adding = queue.addBulk(Array.from({ length: 300 }, (_, i) => ({ name: 'x', data: i })));
    for (let i = 0; i < 5; i++) {
      await commandOf(h.store, 't').sendCommand(['SCRIPT', 'FLUSH']);
      await new Promise((r) => setTimeout(r, 10));
    }
    await adding;
    await waitFor(async () => (await queue.getCounts()).completed === 300, { timeout: 10_000 });
    expect(runs.size).toBe(300);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
  });
});
