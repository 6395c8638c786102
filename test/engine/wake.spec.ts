import { Queue, RedisStore, Worker } from '../../lib/index.js';
import type { ClaimOutcome, CompleteManyOutcome, Completion, Fetch } from '../../lib/store/index.js';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { usePrivateRedis } from '../helpers/private-redis.js';

/**
 * A real store that counts its claim calls. A woken worker's first claim
 * spends the wake-hint budget inside the script (fetch.woken); one refused
 * by the budget takes no job and did no claiming, so `claims` counts the
 * calls that got past the budget and `hinted` every woken call.
 */
class CountingStore extends RedisStore {
  claims = 0;
  hinted = 0;
  override async claim(queue: string, fetch: Fetch): Promise<ClaimOutcome> {
    if (fetch.woken) this.hinted += 1;
    const outcome = await super.claim(queue, fetch);
    if (!fetch.woken || outcome.jobs.length > 0) this.claims += 1;
    return outcome;
  }
}

/**
 * A real store whose answer to one completion write is held back until the
 * test lets it go (the write itself runs in Redis at once), as the WAIT of
 * durability 'replicated' holds it on a busy machine; and no pushes, so
 * idle workers hear of new jobs through wake-ups only.
 */
class HeldCompletionStore extends RedisStore {
  holdFor: string | undefined;
  private released: (() => void) | undefined;
  readonly written = new Set<string>();
  override async completeMany(queue: string, completions: readonly Completion[], fetch: Fetch): Promise<CompleteManyOutcome> {
    const outcome = await super.completeMany(queue, completions, fetch);
    for (const c of completions) this.written.add(c.lease.id);
    if (this.holdFor !== undefined && completions.some((c) => c.lease.id === this.holdFor)) {
      this.holdFor = undefined;
      await new Promise<void>((resolve) => (this.released = resolve));
    }
    return outcome;
  }
  letGo(): void {
    this.released?.();
  }
  override async onPushed(): Promise<undefined> {
    return undefined;
  }
}

/** On a private server: a test counts the PUBLISH commands it executes (INFO commandstats), which other test files would blur. */
describe('wake-ups', () => {
  const server = usePrivateRedis();
  let store: CountingStore;
  const workers: Worker[] = [];

  beforeEach(async () => {
    store = new CountingStore({ url: server.url }, { prefix: uniquePrefix(), logger: silentLogger });
    await store.connect();
  });
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.close()));
    await store.disconnect();
  });

  function idleWorkers(queue: string, count: number, handler: () => Promise<unknown> = async () => undefined): void {
    for (let i = 0; i < count; i++) {
      // pollInterval far beyond the test: every claim here comes from a wake-up.
      workers.push(new Worker(queue, handler, { store, pollInterval: 600_000, logger: silentLogger }));
    }
  }

  it('10 idle workers and 3 new jobs cost about 3 claims, not 10 (wake-hint budget)', async () => {
    const queue = new Queue('herd', { store });
    idleWorkers('herd', 10);
    await Promise.all(workers.map((w) => w.run()));
    await waitFor(() => store.claims === 10, { message: 'each worker to look once at start' });
    store.claims = 0;
    store.hinted = 0;
    await queue.addBulk([{ name: 'a', data: 1 }, { name: 'b', data: 2 }, { name: 'c', data: 3 }]);
    await waitFor(async () => (await queue.getCounts()).completed === 3, { message: '3 jobs done' });
    // The woken workers looked; whether their claims found a job is a race with the pushed worker,
    // whose completion may claim the other two first (then no woken claim counts).
    expect(store.hinted).toBeGreaterThanOrEqual(1);
    expect(store.claims).toBeLessThanOrEqual(4);
    // One round trip per woken worker at most: no worker claims again after the budget refused it.
    expect(store.hinted).toBeLessThanOrEqual(10);
    // The 3 slots the add granted were spent by those claims, not ignored.
    expect(Number((await commandOf(store, 'test').sendCommand(['GET', keysOf(store, 'herd').hint])) ?? 0)).toBe(0);
    expect(await queue.verify()).toEqual([]);
  });

  it('wakes an idle worker for each later add, without polling', async () => {
    const queue = new Queue('each', { store });
    idleWorkers('each', 2);
    await Promise.all(workers.map((w) => w.run()));
    for (let i = 0; i < 5; i++) {
      const job = await queue.add('x', i);
      await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { timeout: 2000, message: `job ${i}` });
    }
    expect(await queue.verify()).toEqual([]);
  });

  it('answers a wake-up heard while a reserve held every slot of a worker that found the queue empty', async () => {
    const queue = new Queue('held', { store });
    await queue.addBulk([{ name: 'a', data: 'A' }, { name: 'b', data: 'B' }]);
    const gates = new Map<string, () => void>();
    const started: string[] = [];
    const worker = new Worker('held', (job) => {
      started.push(String(job.data));
      return new Promise<void>((resolve) => gates.set(String(job.data), resolve));
    }, { store, concurrency: 1, prefetch: 1, pollInterval: 600_000, logger: silentLogger });
    workers.push(worker);
    await worker.run();
    await waitFor(() => gates.has('A'), { message: 'A to start' });
    // A's completion claims B and one job for the reserve: it comes back short, so the worker
    // is idle with its one slot held by B.
    gates.get('A')!();
    await waitFor(() => gates.has('B'), { message: 'B to start' });
    // Listeners run in the order they subscribed: once this one hears C's wake-up, the worker has.
    let heard = false;
    const off = await store.notify.onScheduled((m) => void (m.queue === 'held' && m.kind === 'waiting' && (heard = true)));
    try {
      await queue.add('c', 'C');
      await waitFor(() => heard, { message: "C's wake-up" });
    } finally {
      await off();
    }
    expect(started).toEqual(['A', 'B']);
    gates.get('B')!();
    await waitFor(() => gates.has('C'), { timeout: 3000, message: 'C to start once B freed the slot (poll interval 600 s)' });
    gates.get('C')!();
    await waitFor(async () => (await queue.getCounts()).completed === 3, { message: '3 completed' });
    expect(await queue.verify()).toEqual([]);
  });

  it('a busy queue publishes no wake-up per job (only idle workers are announced to)', async () => {
    const queue = new Queue('busy', { store });
    const before = await publishes(store);
    await queue.addBulk(Array.from({ length: 50 }, (_, i) => ({ name: 'x', data: i })));
    await queue.add('y', 0);
    expect((await publishes(store)) - before).toBe(0);
    idleWorkers('busy', 1);
    await waitFor(async () => (await queue.getCounts()).completed === 51, { message: 'the backlog to drain' });
    expect(await queue.verify()).toEqual([]);
  });

  it('does not go idle on a completion whose claim ran dry before a job it has since been woken for (answers out of order)', async () => {
    const held = new HeldCompletionStore({ url: server.url }, { prefix: uniquePrefix(), logger: silentLogger });
    await held.connect();
    const queue = new Queue('late', { store: held });
    const gates = new Map<string, () => void>();
    const [a1, a2] = await queue.addBulk([{ name: 'a', data: 'A1' }, { name: 'a', data: 'A2' }]);
    held.holdFor = a1!.id;
    const worker = new Worker('late', (job) => (job.data === 'B' ? new Promise<void>((resolve) => gates.set('B', resolve)) : undefined), {
      store: held, concurrency: 2, prefetch: 0, pollInterval: 600_000, logger: silentLogger,
    });
    const done = new Set<string>();
    worker.on('completed', (job) => void done.add(job.id));
    try {
      await worker.run();
      // A1's completion claims one job and finds none: its answer is held. A2's comes back: the worker is idle.
      await waitFor(() => held.written.has(a1!.id) && done.has(a2!.id), { message: 'A1 written, A2 answered' });
      // B's add spends the idle marker on a wake-up; the worker's free slot claims B.
      await queue.add('b', 'B');
      await waitFor(() => gates.has('B'), { message: 'B to start' });
      // Now A1's answer arrives, older than the wake-up for B: it must not put the worker to sleep.
      held.letGo();
      await waitFor(() => done.has(a1!.id), { message: "A1's answer taken" });
      gates.get('B')!();
      await waitFor(async () => (await queue.getCounts()).completed === 3, { message: 'B completed' });
      const c = await queue.add('c', 'C');
      await waitFor(async () => (await queue.getJob(c.id))?.state === 'completed', { timeout: 5000, message: 'C to run, announced to the idle worker (poll interval 600 s)' });
      expect(await queue.verify()).toEqual([]);
    } finally {
      held.letGo();
      await worker.close();
      await held.disconnect();
    }
  });
});

async function publishes(store: RedisStore): Promise<number> {
  const info = String(await commandOf(store, 'test').sendCommand(['INFO', 'commandstats']));
  return Number(/^cmdstat_publish:calls=(\d+)/m.exec(info)?.[1] ?? 0);
}
