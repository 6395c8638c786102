import { waitFor } from '../helpers/wait-for.js';
import { Ledger } from './support/ledger.js';
import { ownRedis } from './support/own-redis.js';
import { scenario, tolerant, type Scenario } from './support/scenario.js';

// Redis itself dies: SIGKILL and restart on the same port with its AOF
// (appendonly yes, appendfsync always), and a 10 s outage. Own redis-server.
// The workers' poll fallback is set to a minute, so only reconnect handling
// (re-subscribe, look for work, re-arm timers) can explain a recovery.
describe('chaos: Redis killed and restarted under load', () => {
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  let s: Scenario;
  const workerOptions = { lockDuration: 3000, stalledInterval: 1000, pollInterval: 60_000, concurrency: 4 };

  beforeEach(async () => {
    redis = await ownRedis({ appendonly: true });
    s = await scenario(redis.url, workerOptions);
  });
  afterEach(async () => {
    await s.dispose();
    await redis.dispose();
  });

  const settled = async () => {
    const c = await s.queue.getCounts();
    return c.waiting + c.delayed + c.active === 0;
  };

  it('SIGKILL + restart with producers and two worker processes: nothing lost, nothing unexpected; idle workers resume without a new add', async () => {
    const workers = [await s.worker(), await s.worker()];
    const ledger = new Ledger();
    const producing = ledger.produce(s.queue, 2, () => ({ mode: 'ok', ms: 5 }));
    await waitFor(() => ledger.acknowledged.size >= 150, { timeout: 20_000, interval: 20, message: '150 jobs acknowledged' });
    await redis.server.kill();
    await new Promise((r) => setTimeout(r, 500)); // the outage: producers and workers keep trying
    await redis.server.restart();
    await waitFor(() => ledger.acknowledged.size >= 400, { timeout: 30_000, interval: 20, message: 'producing resumed after the restart' });
    ledger.stop();
    await producing;
    await waitFor(tolerant(settled), { timeout: 30_000, interval: 100, message: 'every job finished' });

    // Idle workers, and jobs that fall due while Redis is down: nobody adds
    // anything after the restart, yet they must run.
    await s.queue.add('work', { mode: 'ok' }, { jobId: 'due-during-outage-1', delay: 1000 });
    await s.queue.add('work', { mode: 'ok' }, { jobId: 'due-during-outage-2', delay: 1000 });
    await redis.server.kill();
    await new Promise((r) => setTimeout(r, 1500));
    await redis.server.restart();
    const due = ['due-during-outage-1', 'due-during-outage-2'];
    await waitFor(tolerant(async () => (await Promise.all(due.map((id) => s.queue.getJob(id)))).every((j) => j?.state === 'completed')), {
      timeout: 20_000,
      interval: 100,
      message: 'the delayed jobs ran after the restart',
    });

    const completed = await s.store.listIds('q', 'completed', 0, -1);
    const tally = ledger.tally(completed.filter((id) => id.startsWith('j')), workers);
    expect({ lost: tally.lost, unexpected: tally.unexpected }).toEqual({ lost: [], unexpected: [] });
    expect(tally.completed).toBeGreaterThanOrEqual(tally.acknowledged);
    expect(workers.every((w) => w.alive)).toBe(true);
    expect(await s.end()).toEqual([]);
  });

  it('a 10 s outage with idle workers heals by itself: the next add is picked up at once', async () => {
    const workers = [await s.worker(), await s.worker()];
    await s.queue.add('work', { mode: 'ok' }, { jobId: 'before' });
    await waitFor(async () => (await s.queue.getCounts()).completed === 1, { timeout: 10_000, interval: 50, message: 'first job' });
    await redis.server.stop();
    await expect(s.queue.add('work', { mode: 'ok' }, { jobId: 'during' })).rejects.toThrow(/unreachable/);
    await new Promise((r) => setTimeout(r, 10_000));
    await redis.server.restart();
    // The producer's own client reconnects too.
    await waitFor(async () => s.queue.add('work', { mode: 'ok' }, { jobId: 'after' }).then(() => true, () => false), { timeout: 10_000, interval: 100, message: 'producer reconnected' });
    const addedAt = Date.now();
    await waitFor(async () => (await s.queue.getJob('after'))?.state === 'completed', { timeout: 10_000, interval: 20, message: 'job after the outage ran' });
    // Well under the 60 s poll: a wake-up reached a re-subscribed worker.
    expect(Date.now() - addedAt).toBeLessThan(5000);
    expect(workers.every((w) => w.alive)).toBe(true);
    expect(await s.end()).toEqual([]);
  });
});
