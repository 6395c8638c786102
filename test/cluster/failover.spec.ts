import { Queue, RedisStore, Worker, type Durability } from '../../lib/index.js';
import { RedisCluster } from '../helpers/redis-cluster.mjs';
import type { RedisServer } from '../helpers/redis-server.mjs';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

// Failover under load: 3 masters with a replica each; a producer adds jobs one
// by one (an add that fails is repeated with the same jobId until it is
// acknowledged), workers run them, and the queue's master is killed (SIGKILL)
// mid-run. Counted: acknowledged jobs that are gone (lost) and jobs whose
// handler ran more than once (duplicated). Run once with durability 'async'
// and once with 'replicated'. As an operator would, the dead node is started
// again once its replica has taken over: it rejoins as the new master's
// replica (with 'replicated', adds wait for it: a master without a replica
// cannot confirm any).
const JOBS = 300;
const KILL_AFTER = 100;

describe('Redis Cluster failover under load', () => {
  let cluster: RedisCluster;
  beforeAll(async () => {
    cluster = await RedisCluster.start({ masters: 3, replicasPerMaster: 1, nodeTimeout: 1000 });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });


  async function run(durability: Durability) {
    const prefix = uniquePrefix(`f-${durability}`);
    await cluster.waitUntilHealthy();
    const name = 'load';
    const master: RedisServer = await cluster.masterFor(`{${prefix}:${name}}`);
    const store = new RedisStore({ cluster: { rootNodes: cluster.rootNodes }, prefix, durability, logger: silentLogger });
    await store.connect();
    const queue = new Queue(name, { store });
    const runs = new Map<string, number>();
    const workers = [1, 2].map(
      () =>
        new Worker(name, async (job) => void runs.set(job.id, (runs.get(job.id) ?? 0) + 1), {
          store,
          concurrency: 4,
          lockDuration: 3000,
          stalledInterval: 500,
          pollInterval: 500,
        }),
    );
    const acknowledged: string[] = [];
    let failedAdds = 0;
    const refusals = new Set<string>();
    let killedAt = -1;
    let recovery: Promise<RedisServer> | undefined;
    let killedMs = 0;
    let unavailableMs = 0;
    for (let i = 0; i < JOBS; i++) {
      const id = `job-${i}`;
      for (;;) {
        try {
          await queue.add('work', { i }, { jobId: id });
          break;
        } catch (err) {
          refusals.add((err as Error).name);
          failedAdds += 1;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      acknowledged.push(id);
      if (i === KILL_AFTER + 1) unavailableMs = Date.now() - killedMs;
      if (i === KILL_AFTER) {
        killedMs = Date.now();
        killedAt = i;
        await cluster.kill(master);
        recovery = (async () => {
          const promoted = await cluster.waitForFailover(master, `{${prefix}:${name}}`);
          await cluster.restart(master);
          return promoted;
        })();
      }
    }
    const promoted = await recovery!;
    // Every acknowledged job that still exists ends completed; one that is gone was lost with the old master.
    const states = async () => Promise.all(acknowledged.map(async (id) => (await queue.getJob(id).catch(() => undefined))?.state ?? null));
    await waitFor(async () => (await states()).every((s) => s === 'completed' || s === null), {
      timeout: 20_000,
      interval: 200,
      message: `every surviving job of ${durability} completed`,
    });
    const final = await states();
    await Promise.all(workers.map((w) => w.close({ timeout: 5000 })));
    const problems = await queue.verify();
    await store.disconnect();
    const lost = final.filter((s) => s === null).length;
    const duplicated = [...runs.values()].filter((n) => n > 1).length;
    const completedAfterKill = acknowledged.slice(killedAt + 1).filter((id, i) => final[killedAt + 1 + i] === 'completed').length;
    process.stdout.write(
      `[failover ${durability}] ${JOBS} acknowledged adds, master :${master.port} killed after ${KILL_AFTER + 1} (replica :${promoted.port} took over); ` +
        `lost ${lost}, duplicated ${duplicated}, adds refused during failover ${failedAdds}, first add acknowledged ${unavailableMs} ms after the kill, refused with ${[...refusals].join(', ')}\n`,
    );
    return { lost, duplicated, problems, completedAfterKill, failedAdds };
  }

  it("durability 'async': workers go on by themselves after the master dies; losses and duplicates are counted", async () => {
    const outcome = await run('async');
    expect(outcome.problems).toEqual([]);
    // Everything added after the kill went to the promoted replica and ran there.
    expect(outcome.completedAfterKill).toBe(JOBS - KILL_AFTER - 1);
    expect(outcome.lost).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it("durability 'replicated': no acknowledged add is lost", async () => {
    const outcome = await run('replicated');
    expect(outcome.problems).toEqual([]);
    expect(outcome.completedAfterKill).toBe(JOBS - KILL_AFTER - 1);
    expect(outcome.lost).toBe(0);
  }, 60_000);
});
