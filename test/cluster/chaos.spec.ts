import { clusterForFile } from '../helpers/cluster-file.js';
import { waitFor } from '../helpers/wait-for.js';
import { scenario, useClusterScenarios, type Scenario } from '../chaos/support/scenario.js';
// The chaos suite's worker-process kills again on a 3-master Redis Cluster
// (worker processes connect to it with a cluster client), and a kill on a
// queue sharded over the three masters. The other chaos specs stop, restart
// or starve one redis-server of their own (failover.spec.ts does that for
// the cluster) or cut single-node connections.
import '../chaos/worker-crash.spec.js';

const cluster = clusterForFile();
beforeAll(() => useClusterScenarios(() => cluster().rootNodes));

describe('chaos on a sharded queue (shards: 3 over 3 masters)', () => {
  let s: Scenario;
  beforeEach(async () => {
    s = await scenario(undefined, { lockDuration: 1500, stalledInterval: 400, pollInterval: 500, concurrency: 4 }, { shards: 3 });
  });
  afterEach(async () => {
    await s.dispose();
  });

  it('a worker process SIGKILLed mid-run: every job completes, only jobs it held run again, verify() clean', async () => {
    const jobs = await s.queue.addBulk(Array.from({ length: 240 }, (_, i) => ({ name: 'work', data: { mode: 'ok', ms: 15, value: i } })));
    const doomed = await s.worker();
    const survivor = await s.worker();
    await waitFor(() => doomed.of('completed').length >= 20, { timeout: 15_000, message: 'the doomed worker completed 20 jobs' });
    await doomed.kill();
    const heldAtKill = new Set(doomed.of('started').map((m) => m.id!));
    for (const m of doomed.of('completed')) heldAtKill.delete(m.id!);
    await waitFor(async () => (await s.queue.getCounts()).completed === 240, { timeout: 30_000, interval: 50, message: '240 completed' });
    // Redis counts a completion before the survivor's message about it reaches this process: wait for
    // those messages (a job neither reported nor held by the killed worker still fails here).
    const reported = (): Set<string> => new Set([doomed, survivor].flatMap((w) => w.of('completed').map((m) => m.id!)));
    await waitFor(() => {
      const seen = reported();
      return jobs.every((j) => seen.has(j.id) || heldAtKill.has(j.id));
    }, { timeout: 5000, message: 'every job not held by the killed worker reported completed by a worker' });
    const completedBy = new Map<string, number>();
    for (const w of [doomed, survivor]) for (const m of w.of('completed')) completedBy.set(m.id!, (completedBy.get(m.id!) ?? 0) + 1);
    // Reported by no worker: the killed one completed it in Redis, and died before its message left.
    const unreported = jobs.map((j) => j.id).filter((id) => !completedBy.has(id));
    for (const id of unreported) expect(heldAtKill.has(id)).toBe(true);
    for (const id of unreported) expect((await s.queue.getJob(id))?.state).toBe('completed');
    // A job may complete twice only if the killed worker held it (its completion may have reached Redis before the kill).
    const twice = [...completedBy].filter(([, n]) => n > 1).map(([id]) => id);
    for (const id of twice) expect(heldAtKill.has(id)).toBe(true);
    expect(heldAtKill.size).toBeLessThanOrEqual(4);
    expect(await s.end()).toEqual([]);
  });
});
