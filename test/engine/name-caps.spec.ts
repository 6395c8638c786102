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

  it('a batch claim takes no more of a capped name than the worker can start, leaving the rest to other workers', async () => {
    const queue = h.queue<number>('caps-share');
    // Each resize job runs until the test lets it go.
    const release: (() => void)[] = [];
    const runningOn = new Map<string, number>();
    const handler = (workerName: string) => async () => {
      runningOn.set(workerName, (runningOn.get(workerName) ?? 0) + 1);
      await new Promise<void>((resolve) => release.push(resolve));
      runningOn.set(workerName, runningOn.get(workerName)! - 1);
    };
    // A long poll: only claims and wake-ups can hand out the jobs.
    const options = { concurrency: 4, claimBatch: 4, nameConcurrency: { resize: 1 }, pollInterval: 60_000 };
    const a = h.worker('caps-share', handler('a'), options);
    const b = h.worker('caps-share', handler('b'), options);
    await Promise.all([a.run(), b.run()]);
    await queue.addBulk(Array.from({ length: 4 }, (_, i) => ({ name: 'resize', data: i })));
    // Before room-limited claims, the first woken worker took all four (three parked on its leases).
    await waitFor(() => runningOn.get('a') === 1 && runningOn.get('b') === 1, { timeout: 5000, message: 'one resize job running on each worker' });
    expect(a.activeCount).toBe(1);
    expect(b.activeCount).toBe(1);
    expect((await queue.getCounts()).waiting).toBe(2);
    // As runs end, each worker's complete claims the next one of the name.
    for (let done = 0; done < 4; done++) {
      await waitFor(() => release.length > 0, { timeout: 5000, message: 'a resize job waiting to be released' });
      release.shift()!();
    }
    await waitFor(async () => (await queue.getCounts()).completed === 4, { timeout: 5000, message: 'all four resize jobs completed' });
  });

  it('refuses a cap above the worker concurrency', () => {
    expect(() => h.worker('caps2', async () => 1, { concurrency: 2, nameConcurrency: { x: 3 } })).toThrow(
      /Worker options.nameConcurrency.x must be an integer from 1 to 2/,
    );
  });
});
