import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

describe('per-name concurrency inside a worker', () => {
  const h = engineHarness();

  it('caps a name while other names keep flowing past it', async () => {
    const queue = h.queue<number>('caps');
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const finished: string[] = [];
    h.worker<number>(
      'caps',
      async (job) => {
        running.set(job.name, (running.get(job.name) ?? 0) + 1);
        peak.set(job.name, Math.max(peak.get(job.name) ?? 0, running.get(job.name)!));
        await new Promise((r) => setTimeout(r, job.name === 'resize' ? 40 : 2));
        running.set(job.name, running.get(job.name)! - 1);
        finished.push(job.name);
      },
      { concurrency: 6, nameConcurrency: { resize: 2 } },
    );
    // A flood of resize jobs at the head, then emails behind them.
    await queue.addBulk([
      ...Array.from({ length: 12 }, (_, i) => ({ name: 'resize', data: i })),
      ...Array.from({ length: 12 }, (_, i) => ({ name: 'email', data: i })),
    ]);
    await waitFor(() => finished.length === 24, { timeout: 10_000, message: 'all 24 jobs' });
    expect(peak.get('resize')).toBe(2);
    expect(peak.get('email')).toBeGreaterThan(1);
    // Emails did not wait for the resize backlog: all of them finished before the last resize.
    expect(finished.lastIndexOf('email')).toBeLessThan(finished.lastIndexOf('resize'));
  });

  it('refuses a cap above the worker concurrency', () => {
    expect(() => h.worker('caps2', async () => 1, { concurrency: 2, nameConcurrency: { x: 3 } })).toThrow(
      /Worker options.nameConcurrency.x must be an integer from 1 to 2/,
    );
  });
});
