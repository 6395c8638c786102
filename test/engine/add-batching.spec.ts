import { InvalidArgumentError, Queue, QueueFullError, type Job, type RedisStore } from '../../lib/index.js';
import type { NewJob } from '../../lib/store/store.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

interface Counted {
  readonly store: RedisStore;
  /** The jobs of each add script call, in the order sent. */
  readonly calls: NewJob[][];
  /** While set, add replies are held until it resolves (the write stays out). */
  hold?: Promise<void>;
}

/** The harness store, with every add script call recorded, otherwise untouched. */
function countingStore(real: RedisStore): Counted {
  const counted: Counted = { store: real, calls: [] };
  const store = new Proxy(real, {
    get(target, prop) {
      if (prop === 'add') {
        return async (queue: string, jobs: readonly NewJob[]) => {
          counted.calls.push([...jobs]);
          const reply = await target.add(queue, jobs);
          await counted.hold;
          return reply;
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return Object.assign(counted, { store });
}

/** Settles every promise; resolves with each one's job or error, in order. */
function outcomes<T>(promises: Promise<T>[]): Promise<(T | Error)[]> {
  return Promise.all(promises.map((p) => p.then((v) => v, (err: unknown) => err as Error)));
}

/** Single add() calls of one turn share one add script call; each caller gets its own outcome (lib/engine/add-batcher.ts). */
describe('coalesced adds', () => {
  const h = engineHarness();

  function queue(name: string): Counted & { queue: Queue<{ n: number }> } {
    const counted = countingStore(h.store);
    h.queue(name); // verify()'d after the test
    return Object.assign(counted, { queue: new Queue<{ n: number }>(name, { store: counted.store }) });
  }

  it('adds of one turn go in one script call, each resolving with its own job, in call order', async () => {
    const { queue: q, calls } = queue('turn');
    const jobs = await Promise.all(Array.from({ length: 50 }, (_, n) => q.add('x', { n })));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toHaveLength(50);
    expect(new Set(jobs.map((j) => j.id)).size).toBe(50);
    jobs.forEach((job, n) => expect(job).toMatchObject({ name: 'x', data: { n }, state: 'waiting' }));
    // FIFO: the queue holds them in the order add() was called.
    expect((await q.getJobs('waiting', 0, -1)).map((j) => j.data.n)).toEqual(jobs.map((_, n) => n));
  });

  it('a lone add is written at once; adds made while a write is out wait and go together in the next one', async () => {
    const counted = queue('behind');
    const { queue: q, calls } = counted;
    let release!: () => void;
    counted.hold = new Promise<void>((r) => (release = r));
    const first = q.add('x', { n: 0 });
    await waitFor(() => calls.length === 1, { message: 'the first add sent' });
    const rest = [1, 2, 3].map((n) => q.add('x', { n }));
    // Past this turn's microtasks and ticks: a batcher that did not wait for the write out would have sent them.
    await new Promise((r) => setImmediate(r));
    expect(calls).toHaveLength(1);
    counted.hold = undefined;
    release();
    const jobs = await Promise.all([first, ...rest]);
    expect(calls.map((c) => c.length)).toEqual([1, 3]);
    expect(jobs.map((j) => j.data.n)).toEqual([0, 1, 2, 3]);
    await q.add('x', { n: 4 });
    expect(calls.map((c) => c.length)).toEqual([1, 3, 1]);
    expect((await q.getJobs('waiting')).map((j) => j.data.n)).toEqual([0, 1, 2, 3, 4]);
  });

  it('the same jobId twice in one call: the second gets the first job, as two adds one after the other would', async () => {
    const { queue: q, calls } = queue('dup');
    const [a, b, c] = await Promise.all([q.add('x', { n: 1 }, { jobId: 'same' }), q.add('x', { n: 2 }, { jobId: 'same' }), q.add('x', { n: 3 })]);
    expect(calls).toHaveLength(1);
    expect(a).toMatchObject({ id: 'same', data: { n: 1 } });
    expect(b).toMatchObject({ id: 'same', data: { n: 1 } });
    expect(c!.id).not.toBe('same');
    expect((await q.getCounts()).waiting).toBe(2);
  });

  it('one dedup key twice in one call: the second gets the first job', async () => {
    const { queue: q, calls } = queue('dedup');
    const dedup = { key: 'order-7', ttl: 60_000 };
    const [a, b, c] = await Promise.all([q.add('x', { n: 1 }, { dedup }), q.add('x', { n: 2 }, { dedup }), q.add('x', { n: 3 }, { dedup: { key: 'other' } })]);
    expect(calls).toHaveLength(1);
    expect(b!.id).toBe(a!.id);
    expect(b!.data).toEqual({ n: 1 });
    expect(c!.id).not.toBe(a!.id);
    expect((await q.getCounts()).waiting).toBe(2);
  });

  it('maxWaiting with a call partly over the limit: the adds that fit are added, the rest get QueueFullError, as one by one', async () => {
    const { queue: q, calls } = queue('full');
    await q.configure({ maxWaiting: 3 });
    await q.add('x', { n: 0 }, { jobId: 'kept' });
    calls.length = 0;
    const settled = await outcomes([
      q.add('x', { n: 1 }),
      q.add('x', { n: 2 }, { jobId: 'kept' }), // exists: not refused, not counted
      q.add('x', { n: 3 }),
      q.add('x', { n: 4 }),
      q.add('x', { n: 5 }, { delay: 60_000 }), // delayed: not waiting, not counted
      q.add('x', { n: 6 }),
    ]);
    // The coalesced call was refused whole, then each job went alone, in order.
    expect(calls.map((c) => c.length)).toEqual([6, 1, 1, 1, 1, 1, 1]);
    const [one, kept, three, four, five, six] = settled as (Job<{ n: number }> | Error)[];
    expect(one).toMatchObject({ data: { n: 1 }, state: 'waiting' });
    expect(kept).toMatchObject({ id: 'kept', data: { n: 0 } });
    expect(three).toMatchObject({ data: { n: 3 }, state: 'waiting' });
    expect(four).toBeInstanceOf(QueueFullError);
    expect(four).toMatchObject({ limit: 3 });
    expect(five).toMatchObject({ data: { n: 5 }, state: 'delayed' });
    expect(six).toBeInstanceOf(QueueFullError);
    expect((await q.getJobs('waiting')).map((j) => j.data.n)).toEqual([0, 1, 3]);
    expect(await q.getCounts()).toMatchObject({ waiting: 3, delayed: 1 });
  });

  it('an invalid add rejects alone, at its own call, and never reaches the store', async () => {
    const { queue: q, calls } = queue('invalid');
    const settled = await outcomes([q.add('x', { n: 1 }), q.add('x', { n: 2 }, { attempts: -1 }), q.add('', { n: 3 }), q.add('x', { n: 4 })]);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.map((j) => j.data)).toEqual(['{"n":1}', '{"n":4}']);
    expect(settled[0]).toMatchObject({ data: { n: 1 } });
    expect(settled[1]).toBeInstanceOf(InvalidArgumentError);
    expect((settled[1] as Error).message).toContain('opts.attempts');
    expect(settled[2]).toBeInstanceOf(InvalidArgumentError);
    expect(settled[3]).toMatchObject({ data: { n: 4 } });
  });

  it('a bulk keeps its own call (refused whole) and its place among single adds', async () => {
    const { queue: q, calls } = queue('bulk');
    await q.configure({ maxWaiting: 4 });
    const settled = await outcomes<unknown>([
      q.add('x', { n: 1 }),
      q.addBulk([{ name: 'x', data: { n: 2 } }, { name: 'x', data: { n: 3 } }]),
      q.add('x', { n: 4 }),
      q.addBulk([{ name: 'x', data: { n: 5 } }, { name: 'x', data: { n: 6 } }]),
      q.add('x', { n: 7 }),
    ]);
    expect(calls.map((c) => c.length)).toEqual([1, 2, 1, 2, 1]);
    expect(settled[3]).toBeInstanceOf(QueueFullError);
    expect(settled[4]).toBeInstanceOf(QueueFullError);
    expect((await q.getJobs('waiting')).map((j) => j.data.n)).toEqual([1, 2, 3, 4]);
  });
});
