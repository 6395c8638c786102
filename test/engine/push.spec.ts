import { Queue, RedisStore, Worker, type WorkerOptions } from '../../lib/index.js';
import { pushList } from '../../lib/store/keys.js';
import type { ClaimOutcome, Fetch } from '../../lib/store/index.js';
import { logRecorder } from '../helpers/log-recorder.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { WorkerProcess } from '../helpers/worker-process.js';

/** A real store that counts its claim calls: a pushed job reaches its worker with none. */
class CountingStore extends RedisStore {
  claims = 0;
  override async claim(queue: string, fetch: Fetch): Promise<ClaimOutcome> {
    this.claims += 1;
    return super.claim(queue, fetch);
  }
}

/**
 * Pushes (lua/includes/push): an add hands its new jobs to the idle worker
 * whose claim last ran dry, leased in the add's own call. On a private
 * server: the tests read the name key and kill a worker process.
 */
describe('pushes to an idle worker', () => {
  const server = usePrivateRedis();
  let store: CountingStore;
  const workers: Worker[] = [];
  const procs: WorkerProcess[] = [];

  beforeEach(async () => {
    store = new CountingStore({ url: server.url }, { prefix: uniquePrefix(), logger: silentLogger });
    await store.connect();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
    await Promise.all(procs.splice(0).map((p) => p.kill()));
    await store.disconnect();
  });

  /** The idle worker an add would push to ("<worker id>|<lease ms>|<free slots>"), or null. */
  const named = async (queue: string): Promise<string | null> => {
    const value = await commandOf(store).sendCommand(['GET', `${keysOf(store, queue).idle}:push`]);
    return value === null ? null : String(value);
  };

  function idleWorker(queue: string, handler: (data: unknown) => unknown = () => 'ok', more: Partial<WorkerOptions> = {}): Worker {
    // pollInterval far beyond the test: every job here arrives by push or wake-up.
    const worker = new Worker<unknown, unknown>(queue, async (job) => handler(job.data), { store, pollInterval: 600_000, logger: silentLogger, ...more });
    workers.push(worker);
    return worker;
  }

  it('hands a new job to the idle worker in the add: the worker starts it without a claim', async () => {
    const queue = new Queue('handed', { store });
    const ran: unknown[] = [];
    const worker = idleWorker('handed', (data) => ran.push(data), { concurrency: 2, lockDuration: 20_000 });
    await worker.run();
    await waitFor(async () => (await named('handed')) === `${worker.id}|20000|2`, { message: 'the worker named after its first claim ran dry' });
    const claimsBefore = store.claims;
    let drained = 0;
    worker.on('drained', () => (drained += 1));
    for (let i = 0; i < 5; i++) {
      const job = await queue.add('x', i);
      await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { timeout: 3000, message: `job ${i} done` });
      // Its completion claimed again, came back short and named the worker for the next add.
      await waitFor(async () => (await named('handed')) !== null, { message: `the worker named again after job ${i}` });
    }
    expect(ran).toEqual([0, 1, 2, 3, 4]);
    expect(store.claims).toBe(claimsBefore);
    // Each pushed job's completion found the queue empty again: 'drained', as after a claimed one.
    expect(drained).toBe(5);
    expect(await queue.verify()).toEqual([]);
  });

  it('pushes as many jobs as the worker has free slots; the rest wake the other idle workers', async () => {
    const queue = new Queue('split', { store });
    const others = [idleWorker('split'), idleWorker('split')];
    await Promise.all(others.map((w) => w.run()));
    await waitFor(() => store.claims >= 2, { message: 'the other workers looked once' });
    // The last worker whose claim ran dry is the one named.
    const pushed = idleWorker('split', () => 'ok', { concurrency: 1 });
    await pushed.run();
    await waitFor(async () => (await named('split'))?.startsWith(`${pushed.id}|`) === true, { message: 'the last worker named' });
    const ranBy = new Map<string, string>();
    for (const w of [pushed, ...others]) w.on('active', (job) => ranBy.set(job.id, w.id));
    const jobs = await queue.addBulk([0, 1, 2].map((i) => ({ name: 'x', data: i })));
    await waitFor(async () => (await queue.getCounts()).completed === 3, { timeout: 3000, message: 'all 3 done without polling' });
    // The first job went to the named worker, leased in the add; a wake-up took the other two.
    expect(ranBy.get(jobs[0]!.id)).toBe(pushed.id);
    expect(await queue.verify()).toEqual([]);
  });

  it('a named worker that claims a full batch is busy again: its name is dropped, so no add pushes behind its running job', async () => {
    const queue = new Queue('busy', { store });
    let release: () => void = () => undefined;
    const worker = idleWorker('busy', (data) => (data === 1 ? new Promise<void>((resolve) => (release = resolve)) : 'ok'), { concurrency: 1 });
    await worker.run();
    await waitFor(async () => (await named('busy')) !== null, { message: 'the worker named' });
    // A delayed job is not pushed: its promotion wakes the worker, whose claim takes it and fills its one slot.
    const delayed = await queue.add('x', 1, { delay: 50 });
    await waitFor(async () => (await queue.getJob(delayed.id))?.state === 'active', { timeout: 3000, message: 'the delayed job claimed' });
    expect(await named('busy')).toBeNull();
    const next = await queue.add('x', 2);
    expect((await queue.getJob(next.id))?.state).toBe('waiting');
    release();
    await waitFor(async () => (await queue.getCounts()).completed === 2, { message: 'both done' });
  });

  it('a closing worker drops its name: later adds wait for the next worker', async () => {
    const queue = new Queue('closing', { store });
    const first = idleWorker('closing');
    await first.run();
    await waitFor(async () => (await named('closing')) !== null, { message: 'the worker named' });
    await first.close();
    expect(await named('closing')).toBeNull();
    const job = await queue.add('x', 1);
    expect((await queue.getJob(job.id))?.state).toBe('waiting');
    await idleWorker('closing').run();
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { message: 'the next worker ran it' });
    expect(await queue.verify()).toEqual([]);
  });

  it('a job pushed to a worker that died idle comes back when its lease expires', async () => {
    const queue = new Queue('dead', { store });
    const proc = await WorkerProcess.start({
      url: server.url,
      prefix: store.prefix,
      queue: 'dead',
      worker: { lockDuration: 1500, pollInterval: 600_000 },
    });
    procs.push(proc);
    await waitFor(async () => (await named('dead')) !== null, { message: 'the child worker named' });
    await proc.kill();
    const job = await queue.add('x', 1);
    // Leased to the dead worker by the add: nobody runs it until the lease expires.
    expect((await queue.getJob(job.id))?.state).toBe('active');
    expect(await named('dead')).toBeNull();
    idleWorker('dead', () => 'ok', { stalledInterval: 200 });
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { timeout: 10_000, message: 'reaped and run by the live worker' });
    const done = await queue.getJob(job.id);
    expect(done?.stalled).toBe(1);
    expect(proc.started()).toEqual([]);
    expect(await queue.verify()).toEqual([]);
  });

  it('a worker whose subscriber connection drops drops its name: an add meanwhile waits, and starts once the subscription is back', async () => {
    const queue = new Queue('deaf', { store });
    const ran: unknown[] = [];
    const worker = idleWorker('deaf', (data) => ran.push(data), { lockDuration: 20_000 });
    await worker.run();
    await waitFor(async () => (await named('deaf')) !== null, { message: 'the worker named after its first claim ran dry' });
    const admin = commandOf(store);
    const info = String(await admin.sendCommand(['INFO', 'clients']));
    const connected = Number(/connected_clients:(\d+)/.exec(info)?.[1]);
    const reply = (await admin.sendCommand(['CONFIG', 'GET', 'maxclients'])) as string[] | Record<string, string>;
    const maxclients = Array.isArray(reply) ? reply[1] : reply.maxclients;
    // Room for no new connection: the subscriber, once killed, stays down until the limit is restored.
    await admin.sendCommand(['CONFIG', 'SET', 'maxclients', String(connected - 1)]);
    let job;
    try {
      expect(await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub'])).toBeGreaterThanOrEqual(1);
      await waitFor(async () => (await named('deaf')) === null, { message: 'the name dropped when the subscriber did' });
      job = await queue.add('x', 1);
      // Not leased to a worker that cannot hear it (it would wait out 20 s and count a stall): it waits.
      expect((await queue.getJob(job.id))?.state).toBe('waiting');
      expect(ran).toEqual([]);
    } finally {
      await admin.sendCommand(['CONFIG', 'SET', 'maxclients', maxclients ?? '10000']);
    }
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { timeout: 5000, message: 'claimed after the reconnect' });
    expect((await queue.getJob(job.id))?.stalled).toBe(0);
    // The reconnect's claim ran dry and named the worker again: the next add is pushed.
    await waitFor(async () => (await named('deaf')) !== null, { message: 'the worker named again' });
    const claimsBefore = store.claims;
    const next = await queue.add('x', 2);
    await waitFor(async () => (await queue.getJob(next.id))?.state === 'completed', { timeout: 3000, message: 'the pushed job done' });
    expect(store.claims).toBe(claimsBefore);
    expect(ran).toEqual([1, 2]);
    expect(await queue.verify()).toEqual([]);
  });

  it('a push made while the worker\'s push connection is down waits in its list and starts once the connection is back: no claim, no stall', async () => {
    const queue = new Queue('blip', { store });
    const ran: unknown[] = [];
    const worker = idleWorker('blip', (data) => ran.push(data), { lockDuration: 20_000 });
    await worker.run();
    await waitFor(async () => (await named('blip')) !== null, { message: 'the worker named after its first claim ran dry' });
    const admin = commandOf(store);
    const pushName = `spool-push:${pushList(keysOf(store, 'blip'), worker.id)}`;
    await waitFor(async () => String(await admin.sendCommand(['CLIENT', 'LIST'])).includes(`name=${pushName} `), { message: 'the push connection named' });
    const claimsBefore = store.claims;
    // Killed and added at once: the push lands in the list whether or not the worker is back in BLPOP yet.
    const clients = String(await admin.sendCommand(['CLIENT', 'LIST']));
    const id = clients.split('\n').find((line) => line.includes(` name=${pushName} `))?.match(/^id=(\d+) /)?.[1];
    expect(await admin.sendCommand(['CLIENT', 'KILL', 'ID', id ?? 'none'])).toBe(1);
    const job = await queue.add('x', 1);
    expect((await queue.getJob(job.id))?.state).toBe('active'); // leased to the worker by the add
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { timeout: 5000, message: 'the pushed job done after the reconnect' });
    expect((await queue.getJob(job.id))?.stalled).toBe(0);
    expect(store.claims).toBe(claimsBefore);
    expect(ran).toEqual([1]);
    expect(await queue.verify()).toEqual([]);
  });

  it('a closed worker leaves neither its push list nor its push connection behind', async () => {
    const queue = new Queue('tidy', { store });
    const worker = idleWorker('tidy', () => 'ok', { lockDuration: 20_000 });
    await worker.run();
    await waitFor(async () => (await named('tidy')) !== null, { message: 'the worker named' });
    const job = await queue.add('x', 1);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { message: 'the pushed job done' });
    const admin = commandOf(store);
    const list = pushList(keysOf(store, 'tidy'), worker.id);
    expect(String(await admin.sendCommand(['CLIENT', 'LIST']))).toContain(`name=spool-push:${list} `);
    await worker.close();
    workers.splice(workers.indexOf(worker), 1);
    expect(await admin.sendCommand(['EXISTS', list])).toBe(0);
    await waitFor(async () => !String(await admin.sendCommand(['CLIENT', 'LIST'])).includes(`name=spool-push:${list} `), { message: 'the push connection closed' });
  });

  it('a store that disconnects under a running worker closes that worker\'s push connection', async () => {
    const own = new RedisStore({ url: server.url }, { prefix: store.prefix, logger: silentLogger });
    await own.connect();
    const worker = new Worker<unknown, unknown>('orphan', async () => 'ok', { store: own, pollInterval: 600_000, logger: silentLogger });
    await worker.run();
    await waitFor(async () => (await named('orphan')) !== null, { message: 'the worker named' });
    const admin = commandOf(store);
    const name = `name=spool-push:${pushList(keysOf(store, 'orphan'), worker.id)} `;
    expect(String(await admin.sendCommand(['CLIENT', 'LIST']))).toContain(name);
    await own.disconnect();
    await waitFor(async () => !String(await admin.sendCommand(['CLIENT', 'LIST'])).includes(name), { message: 'the push connection closed' });
    await worker.close().catch(() => undefined);
  });

  it('a worker with name caps is never named (its claims step over capped names)', async () => {
    const queue = new Queue('capped', { store });
    const worker = idleWorker('capped', () => 'ok', { nameConcurrency: { x: 1 } });
    await worker.run();
    await waitFor(() => store.claims >= 1, { message: 'the first claim' });
    expect(await named('capped')).toBeNull();
    const job = await queue.add('x', 1);
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { message: 'woken and claimed' });
    expect(store.claims).toBeGreaterThanOrEqual(2);
  });

  it('an unreadable message in the push list is logged; the worker goes on', async () => {
    const { logger, at } = logRecorder();
    const own = new RedisStore({ url: server.url }, { prefix: store.prefix, logger });
    await own.connect();
    try {
      const queue = new Queue('garbled', { store: own });
      const worker = new Worker<unknown, unknown>('garbled', async () => 'ok', { store: own, pollInterval: 600_000, logger });
      workers.push(worker);
      await worker.run();
      await waitFor(async () => (await named('garbled')) !== null, { message: 'the worker named' });
      await commandOf(store).sendCommand(['RPUSH', pushList(keysOf(store, 'garbled'), worker.id), 'not json']);
      await waitFor(() => at('error').some((line) => line.includes(`a push to worker ${worker.id}`)), { message: 'the error logged' });
      const job = await queue.add('x', 1);
      await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { message: 'the next push still runs' });
    } finally {
      await Promise.all(workers.splice(0).map((w) => w.close()));
      await own.disconnect();
    }
  });
});
