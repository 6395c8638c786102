import type { ActiveJob } from '../../lib/index.js';
import { InvalidArgumentError } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';
import { WorkerProcess, childStoreOf } from '../helpers/worker-process.js';

describe('pause and resume', () => {
  const h = engineHarness();

  it('pauses one job name for a worker in another process; paused jobs keep their order and are counted', async () => {
    const queue = h.queue('names');
    const proc = await WorkerProcess.start({ ...childStoreOf(h.store), queue: 'names', worker: { concurrency: 1 } });
    try {
      // The worker is running and idle when the pause comes from this process.
      await queue.add('report', 'warm-up');
      await waitFor(() => proc.completed().length === 1, { message: 'the warm-up job' });
      expect(await queue.pause({ names: ['report'] })).toBe(true);
      expect(await queue.pausedNames()).toEqual(['report']);
      await queue.addBulk([
        ...Array.from({ length: 5 }, (_, i) => ({ name: 'report', data: `report-${i}` })),
        ...Array.from({ length: 5 }, (_, i) => ({ name: 'email', data: `email-${i}` })),
      ]);
      await waitFor(() => proc.completed().filter((m) => m.name === 'email').length === 5, { message: 'the email jobs' });
      expect(proc.started().filter((m) => m.name === 'report')).toHaveLength(1); // the warm-up only
      expect(await queue.getCounts()).toMatchObject({ waiting: 0, paused: 5, completed: 6 });

      await queue.resume({ names: ['report'] });
      await waitFor(() => proc.completed().length === 11, { message: 'the resumed report jobs' });
      const reports = await Promise.all(proc.completed().filter((m) => m.name === 'report').slice(1).map((m) => queue.getJob(m.id)));
      expect(reports.map((j) => j!.data)).toEqual(['report-0', 'report-1', 'report-2', 'report-3', 'report-4']);
      expect(await queue.getCounts()).toMatchObject({ waiting: 0, paused: 0, completed: 11 });
    } finally {
      await proc.close();
    }
  });

  it('pauses the whole queue: nothing starts, counts show the jobs as paused, resume runs them in order', async () => {
    const queue = h.queue('whole');
    const seen: string[] = [];
    h.worker('whole', async (job: ActiveJob<string>) => void seen.push(job.data), { concurrency: 1 });
    expect(await queue.pause()).toBe(true);
    expect(await queue.isPaused()).toBe(true);
    await queue.addBulk(['a', 'b', 'c'].map((d) => ({ name: 'j', data: d })));
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, paused: 3 });
    // A worker that hears the add must still claim nothing: wait for its claim to come back empty.
    const probe = await h.store.claim('whole', { count: 3, workerId: 'probe', lockMs: 1000 });
    expect(probe.jobs).toEqual([]);
    expect(seen).toEqual([]);
    expect(await queue.resume()).toBe(true);
    await waitFor(() => seen.length === 3, { message: 'the jobs after resume' });
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('counts the waiting jobs of a paused group as paused, before and after the pause, and as waiting again on resume', async () => {
    const queue = h.queue('group-pause');
    const before = await queue.add('sync', 'early', { group: { id: 'tenant-7' } });
    await queue.pauseGroup('tenant-7');
    await queue.addBulk([
      ...Array.from({ length: 3 }, (_, i) => ({ name: 'sync', data: `t7-${i}`, opts: { group: { id: 'tenant-7' } } })),
      { name: 'sync', data: 'other', opts: { group: { id: 'tenant-8' } } },
      { name: 'sync', data: 'ungrouped' },
    ]);
    expect(await queue.getGroup('tenant-7')).toMatchObject({ waiting: 4, paused: true });
    expect(await queue.getCounts()).toMatchObject({ waiting: 2, paused: 4 });
    // A paused group's job leaving waiting (here cancelled) leaves the count too.
    await queue.cancel(before.id);
    expect(await queue.getCounts()).toMatchObject({ waiting: 2, paused: 3, cancelled: 1 });
    // Pausing twice counts nothing twice.
    expect(await queue.pauseGroup('tenant-7')).toBe(false);
    expect(await queue.getCounts()).toMatchObject({ waiting: 2, paused: 3 });
    await queue.resumeGroup('tenant-7');
    expect(await queue.getCounts()).toMatchObject({ waiting: 5, paused: 0 });
  });

  it('refuses bad pause options with the field named', async () => {
    const queue = h.queue('bad-pause');
    await expect(queue.pause({ names: [] })).rejects.toThrow(InvalidArgumentError);
    await expect(queue.pause({ names: [''] })).rejects.toThrow(/pause\(\) options\.names/);
    await expect(queue.resume({ name: 'x' } as never)).rejects.toThrow(/resume\(\) options\.name/);
    expect(await queue.pausedNames()).toEqual([]);
  });
});
