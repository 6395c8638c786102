import { hostname } from 'node:os';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

/** queue.getWorkers(): the heartbeats of running workers, gone when they close or stop beating. */
export function workerCases(env: ContractEnv): void {
  const { queue, worker } = env;
  describe('workers list', () => {
    it('lists each running worker with its host, pid and concurrency; a closed one leaves', async () => {
      const q = queue('staffed');
      const a = worker('staffed', async () => 'ok', { concurrency: 3 });
      const b = worker('staffed', async () => 'ok', { concurrency: 7 });
      await waitFor(async () => (await q.getWorkers()).length === 2, { message: 'both workers listed' });
      const listed = await q.getWorkers();
      expect(listed.map((w) => [w.id, w.concurrency, w.hostname, w.pid, w.running]).sort()).toEqual(
        [[a.id, 3, hostname(), process.pid, 0], [b.id, 7, hostname(), process.pid, 0]].sort(),
      );
      for (const w of listed) expect(w.seenAt).toBeGreaterThanOrEqual(w.startedAt);
      await a.close();
      expect((await q.getWorkers()).map((w) => w.id)).toEqual([b.id]);
    });

    it('shows a paused worker as paused at once, and running again once resumed', async () => {
      const q = queue('resting');
      const a = worker('resting', async () => 'ok');
      const b = worker('resting', async () => 'ok');
      await waitFor(async () => (await q.getWorkers()).length === 2, { message: 'both workers listed' });
      expect((await q.getWorkers()).map((w) => w.paused)).toEqual([false, false]);
      await a.pause();
      // Not at the next heartbeat (5 s away): the pause beats at once.
      await waitFor(async () => (await q.getWorkers()).find((w) => w.id === a.id)?.paused === true, { timeout: 2000, message: 'a listed as paused' });
      expect((await q.getWorkers()).find((w) => w.id === b.id)?.paused).toBe(false);
      await a.resume();
      await waitFor(async () => (await q.getWorkers()).every((w) => !w.paused), { timeout: 2000, message: 'a listed as running again' });
    });

    it('leaves out a worker whose heartbeats stopped, and the next heartbeat forgets it', async () => {
      const s = env.store();
      const ghost = { id: 'ghost', hostname: 'gone-host', pid: 1, concurrency: 1, running: 0, startedAt: 0, paused: false };
      await s.beat('haunted', ghost, 60_000);
      expect((await s.listWorkers('haunted', 60_000)).map((w) => w.id)).toEqual(['ghost']);
      await new Promise((resolve) => setTimeout(resolve, 30));
      // Older than a 10 ms bound: not listed, though still stored.
      expect(await s.listWorkers('haunted', 10)).toEqual([]);
      expect((await s.listWorkers('haunted', 60_000)).map((w) => w.id)).toEqual(['ghost']);
      await s.beat('haunted', { ...ghost, id: 'alive', hostname: 'here' }, 10);
      expect((await s.listWorkers('haunted', 60_000)).map((w) => w.id)).toEqual(['alive']);
      await s.forgetWorker('haunted', 'alive');
      expect(await s.listWorkers('haunted', 60_000)).toEqual([]);
    });
  });
}
