import { FlowProducer, InvalidArgumentError, Queue, QueueEvents, ShardCountMismatchError, listQueues, type Job } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { ID_BASE, RENUMBER_MARGIN } from '../../lib/engine/ids.js';
import { waitFor } from '../helpers/wait-for.js';

// A queue spread over 3 shards, end to end through Queue, Worker and
// QueueEvents: on the run's Redis here, and again on a 3-master Redis
// Cluster (test/cluster/sharded.spec.ts, which also checks the placement).
const SHARDS = 3;

describe('sharded queues (shards: 3)', () => {
  const h = engineHarness({ pollInterval: 60_000 });

  /** The physical queues of `name`, as the placement stored them. */
  async function shardNames(name: string): Promise<readonly string[]> {
    return h.store.placeShards(name, SHARDS);
  }

  it('spreads jobs over every shard and runs each exactly once, grouped jobs whole in one shard', async () => {
    const name = uniquePrefix('orders');
    const queue = h.queue<{ n: number }>(name, { shards: SHARDS });
    await queue.addBulk(Array.from({ length: 150 }, (_, n) => ({ name: 'plain', data: { n } })));
    await queue.addBulk(Array.from({ length: 60 }, (_, n) => ({ name: 'grouped', data: { n: 1000 + n }, opts: { group: { id: `tenant-${n % 4}` } } })));
    const counts = await Promise.all((await shardNames(name)).map((shard) => h.store.getCounts(shard)));
    expect(counts.every((c) => c.waiting > 0)).toBe(true);
    expect(counts.reduce((n, c) => n + c.waiting, 0)).toBe(210);
    expect((await queue.getCounts()).waiting).toBe(210);
    for (let g = 0; g < 4; g++) {
      const holding = await Promise.all((await shardNames(name)).map(async (shard) => (await h.store.getGroup(shard, `tenant-${g}`)).waiting));
      expect(holding.filter((w) => w > 0)).toEqual([15]);
    }
    const runs = new Map<number, number>();
    h.worker<{ n: number }>(name, async (job) => void runs.set(job.data.n, (runs.get(job.data.n) ?? 0) + 1), { concurrency: 8, shards: SHARDS });
    await waitFor(async () => (await queue.getCounts()).completed === 210, { timeout: 20_000, message: '210 completed' });
    expect(runs.size).toBe(210);
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, active: 0, completed: 210 });
  });

  it('finds, cancels, promotes and waits for jobs by id, whatever shard holds them', async () => {
    const name = uniquePrefix('lookup');
    const queue = h.queue<string>(name, { shards: SHARDS });
    const delayed = await Promise.all(Array.from({ length: 9 }, (_, i) => queue.add('later', `d${i}`, { jobId: `d${i}`, delay: 60_000 })));
    const grouped = await queue.add('g', 'in a group', { jobId: 'grouped-1', group: { id: 'acme' }, delay: 60_000 });
    const deduped = await queue.add('x', 'once', { dedup: { key: 'only-once' }, delay: 60_000 });
    expect((await queue.add('x', 'twice', { dedup: { key: 'only-once' }, delay: 60_000 })).id).toBe(deduped.id);
    for (const job of [...delayed, grouped, deduped]) expect((await queue.getJob(job.id))?.data).toBe(job.data);
    expect((await queue.getJobs('delayed', { start: 0, end: -1 })).map((j) => j.id).sort()).toEqual([...delayed, grouped, deduped].map((j) => j.id).sort());
    expect(await queue.cancel('grouped-1')).toBe('cancelled');
    expect(await queue.cancel('missing')).toBe('not-found');
    expect(await queue.promote(['d0', 'd1', 'd2'])).toBe(3);
    const done = new Set<string>();
    h.worker<string>(name, async (job) => void done.add(job.id), { shards: SHARDS, concurrency: 4 });
    await expect(queue.waitFor('d1', { timeout: 10_000 })).resolves.toBeNull();
    await waitFor(() => done.size === 3, { message: 'the three promoted jobs' });
    expect([...done].sort()).toEqual(['d0', 'd1', 'd2']);
    expect(await queue.getCounts()).toMatchObject({ delayed: 7, cancelled: 1, completed: 3 });
  });

  it('pages, redrives and purges dead letters across shards', async () => {
    const name = uniquePrefix('dead');
    const queue = h.queue<number>(name, { shards: SHARDS });
    await queue.addBulk(Array.from({ length: 25 }, (_, i) => ({ name: 'boom', data: i })));
    let fail = true;
    h.worker<number>(name, async () => {
      if (fail) throw new Error('no luck');
    }, { shards: SHARDS, concurrency: 5, logger: silentLogger });
    await waitFor(async () => (await queue.getCounts()).failed === 25, { timeout: 10_000, message: '25 dead letters' });
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await queue.getFailed({ limit: 4, ...(cursor && { cursor }) });
      expect(page.jobs.length).toBeLessThanOrEqual(4);
      seen.push(...page.jobs.map((j) => j.id));
      cursor = page.cursor ?? undefined;
    } while (cursor);
    expect(seen.length).toBe(25);
    expect(new Set(seen).size).toBe(25);
    expect(await queue.countJobs('failed', { reason: 'error' })).toBe(25);
    fail = false;
    expect(await queue.redrive({ filter: { name: 'boom' } })).toBe(25);
    await waitFor(async () => (await queue.getCounts()).completed === 25, { timeout: 10_000, message: 'redriven jobs completed' });
    expect(await queue.purge('completed')).toBe(25);
    expect(await queue.getCounts()).toMatchObject({ completed: 0, failed: 0, waiting: 0 });
  });

  it('merges the shards\' event streams and metrics', async () => {
    const name = uniquePrefix('events');
    const queue = h.queue<number>(name, { shards: SHARDS });
    const events = new QueueEvents(name, { store: h.store, shards: SHARDS, blockMs: 200 });
    const completed = new Set<string>();
    events.on('completed', (e) => completed.add(e.jobId));
    try {
      await events.ready();
      const jobs = await queue.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'e', data: i })));
      h.worker<number>(name, async (job: Job<number>) => job.data * 2, { shards: SHARDS, concurrency: 4 });
      await waitFor(() => completed.size === 30, { timeout: 10_000, message: '30 completed events' });
      expect([...completed].sort()).toEqual(jobs.map((j) => j.id).sort());
      expect(events.lastId.split(',')).toHaveLength(SHARDS);
    } finally {
      await events.close();
    }
    const metrics = await queue.getMetrics();
    expect(metrics.counts.completed).toBe(30);
    expect(metrics.minutes.reduce((n, m) => n + m.completed, 0)).toBe(30);
  });

  it('samples the gauge history on every shard from the worker heartbeat, and reports the worst shard per minute', async () => {
    const name = uniquePrefix('gauges');
    const queue = h.queue<number>(name, { shards: SHARDS });
    await queue.pause();
    await queue.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: 'g', data: i })));
    h.worker<number>(name, async (job: Job<number>) => job.data, { shards: SHARDS });
    const sampledShards = async (): Promise<(number | null)[]> =>
      Promise.all((await shardNames(name)).map(async (shard) => (await h.store.getMetrics(shard)).minutes.find((m) => m.oldestWaitingMs !== null)?.oldestWaitingMs ?? null));
    await waitFor(async () => (await sampledShards()).every((v) => v !== null), { message: 'a sample on every shard' });
    const perShard = (await sampledShards()) as number[];
    const merged = (await queue.getMetrics()).minutes.filter((m) => m.oldestWaitingMs !== null);
    // One minute sampled (or two, across a minute's turn): the queue's figure is the worst shard's.
    expect(merged.length).toBeGreaterThanOrEqual(1);
    expect(merged[0]!.oldestWaitingMs).toBe(Math.max(...perShard));
    await queue.resume();
  });

  it('pauses every shard, splits queue-wide limits and reports them whole', async () => {
    const name = uniquePrefix('limits');
    const queue = h.queue<number>(name, { shards: SHARDS });
    expect(await queue.pause()).toBe(true);
    expect(await queue.isPaused()).toBe(true);
    for (const shard of await shardNames(name)) expect(await h.store.isPaused(shard)).toBe(true);
    await queue.resume();
    await queue.configure({ rateLimit: { max: 30, duration: 1000 }, maxWaiting: 300 });
    await queue.setGlobalConcurrency(7);
    for (const shard of await shardNames(name)) expect(await h.store.getLimits(shard)).toMatchObject({ rateLimit: { max: 10, duration: 1000 }, maxWaiting: 100, concurrency: 3 });
    expect(await queue.getLimits()).toMatchObject({ rateLimit: { max: 30, duration: 1000 }, maxWaiting: 300 });
    // A cap split over the shards rounds up per shard: 3 each, 9 for the queue.
    expect(await queue.getGlobalConcurrency()).toBe(9);
  });

  it('reaches a job through its handle on whatever shard holds it, drains every shard and obliterates them all', async () => {
    const name = uniquePrefix('handles');
    const queue = h.queue<string>(name, { shards: SHARDS });
    const jobs = await queue.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'n', data: `j${i}`, opts: { jobId: `j${i}`, ...(i % 3 === 0 && { delay: 60_000 }) } })));
    const later = jobs[0]!;
    expect(await later.getState()).toBe('delayed');
    await later.changePriority({ priority: 2 });
    await later.promote();
    expect(await later.isWaiting()).toBe(true);
    await jobs[1]!.updateData('changed');
    expect((await queue.getJob('j1'))!.data).toBe('changed');
    await jobs[2]!.remove();
    expect(await jobs[2]!.getState()).toBe('unknown');
    expect(await queue.drain()).toBe(20);
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, delayed: 9 });
    expect(await queue.drain({ delayed: true })).toBe(9);
    await queue.add('again', 'x');
    const shards = await shardNames(name);
    await queue.obliterate();
    for (const shard of shards) expect(Object.values(await h.store.getCounts(shard)).every((n) => n === 0)).toBe(true);
    expect(await h.store.shardCount(name)).toBeUndefined();
  });

  it('refuses another shard count, bad values and flows, and verify() names jobs added without shards', async () => {
    const name = uniquePrefix('strict');
    const queue = h.queue<number>(name, { shards: SHARDS });
    await queue.add('a', 1);
    const other = new Queue<number>(name, { store: h.store, shards: 2 });
    await expect(other.add('a', 2)).rejects.toBeInstanceOf(ShardCountMismatchError);
    await expect(other.add('a', 2)).rejects.toThrow(`pass shards: ${SHARDS}`);
    expect(() => new Queue(name, { store: h.store, shards: 0 })).toThrow(InvalidArgumentError);
    expect(() => new Queue(name, { store: h.store, shards: 1.5 })).toThrow('Queue options.shards');
    const flows = new FlowProducer({ store: h.store, queues: [queue as Queue] });
    await expect(flows.add({ name: 'f', queueName: name, data: 1 })).rejects.toThrow(/sharded over 3 queues/);
    await expect(flows.add({ name: 'f', queueName: name, data: 1 })).rejects.toBeInstanceOf(InvalidArgumentError);
    const plain = new Queue<number>(name, { store: h.store });
    await plain.add('stray', 3);
    expect(await queue.verify()).toEqual([expect.stringContaining(`1 jobs in the unsharded queue "${name}"`)]);
    expect(await plain.cancel((await plain.getJobs('waiting'))[0]!.id)).toBe('cancelled');
    expect(await plain.purge('cancelled')).toBe(1);
    expect(await queue.verify()).toEqual([]);
  });

  it('gives no two jobs one id after the id counter went back (a failover lost the last draws of shard 0)', async () => {
    const name = uniquePrefix('ids');
    const shards = await shardNames(name);
    const [a, b, c] = [0, 1, 2].map(() => h.queue<string>(name, { shards: SHARDS }));
    // Producer a draws 1..16 from shard 0's counter and writes 1; then the counter loses that draw.
    await a!.add('a', 'a0');
    await commandOf(h.store).sendCommand(['HSET', keysOf(h.store, shards[0]!).meta, 'ids', '1']);
    // b draws 2..17 and writes 2..16, on whichever shards their ids pick.
    await b!.addBulk(Array.from({ length: 15 }, (_, i) => ({ name: 'b', data: `b${i}` })));
    // a still holds 2..16: its 13 numbers 2..14 are taken on their shards, so these jobs are numbered anew.
    const renumbered = await a!.addBulk(Array.from({ length: 13 }, (_, i) => ({ name: 'a', data: `a${i + 1}` })));
    expect(renumbered.every((job) => Number(job.id) > ID_BASE + 14 + RENUMBER_MARGIN - 13)).toBe(true);
    // c draws later, from shard 0's counter: never a number that any shard gave meanwhile.
    await c!.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: 'c', data: `c${i}` })));
    const held = (await Promise.all(shards.map((shard) => h.store.listIds(shard, 'waiting', 0, -1)))).flat();
    const twice = held.filter((id, i) => held.indexOf(id) !== i);
    expect(twice).toEqual([]);
    expect(held).toHaveLength(1 + 15 + 13 + 40);
    // Every job is found by its id, with its own data.
    for (const job of [...renumbered, ...(await c!.getJobs('waiting', { start: 0, end: -1 })).filter((j) => j.name === 'c')]) {
      expect((await a!.getJob(job.id))!.data).toBe(job.data);
    }
    expect(await a!.verify()).toEqual([]);
  });

  it('is listed once, by its own name, and its shard count is read back from the placement', async () => {
    const name = uniquePrefix('listed');
    const queue = h.queue<number>(name, { shards: SHARDS });
    await queue.addBulk(Array.from({ length: 9 }, (_, i) => ({ name: 'x', data: i })));
    const listed = await listQueues(h.store);
    expect(listed.filter((q) => q === name || q.startsWith(`${name}~`))).toEqual([name]);
    expect(await h.store.shardCount(name)).toBe(SHARDS);
    expect(await h.store.shardCount(uniquePrefix('never-sharded'))).toBeUndefined();
  });

  it('wakes an idle worker for work added to any shard (poll interval 60 s)', async () => {
    const name = uniquePrefix('wake');
    const queue = h.queue<number>(name, { shards: SHARDS });
    const ran: number[] = [];
    const worker = h.worker<number>(name, async (job) => void ran.push(job.data), { shards: SHARDS, concurrency: 2 });
    await worker.run();
    for (let i = 0; i < 12; i++) {
      await queue.add('w', i);
      await waitFor(() => ran.length === i + 1, { timeout: 3000, message: `job ${i} run after its wake-up` });
    }
    expect(ran).toEqual(Array.from({ length: 12 }, (_, i) => i));
  });
});
