import pg from 'pg';
import { FlowProducer, Queue, TransactionalEnqueueUnsupportedError, Worker } from '../../lib/index.js';
import type { PostgresStore } from '../../lib/postgres/index.js';
import { testPostgresStore, uniqueSchema, usePostgresServer } from '../helpers/postgres.js';
import { testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Transactional enqueue on PostgresStore: a job added with `{ tx }` exists
 * if and only if the caller's transaction commits, like the business rows
 * written beside it (an order and its confirmation email).
 */
const server = usePostgresServer();

describe('transactional enqueue (PostgresStore, { tx })', () => {
  let store: PostgresStore;
  let app: pg.Pool;
  let schema: string;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    schema = uniqueSchema('tx');
    store = await testPostgresStore(server(), schema);
    // The app's own pool and table, in the same database as the store.
    app = new pg.Pool({ connectionString: server().url(), max: 20 });
    await app.query(`CREATE TABLE ${schema}.orders (id serial PRIMARY KEY, item text NOT NULL)`);
  });

  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
    await app.end();
    await store.disconnect();
  });

  /** A worker that records every run of the queue's jobs by their `i`. */
  function recorder(queue: string, concurrency = 10): Map<number, number> {
    const runs = new Map<number, number>();
    const worker = new Worker<{ i: number }>(queue, async (job) => void runs.set(job.data.i, (runs.get(job.data.i) ?? 0) + 1), { store, concurrency });
    closers.push(async () => void (await worker.close({ timeout: 2000 })));
    return runs;
  }

  /** Runs `body` in a transaction of the app's pool, then commits or rolls back. */
  async function inTransaction<T>(commit: boolean, body: (tx: pg.PoolClient) => Promise<T>): Promise<T> {
    const tx = await app.connect();
    try {
      await tx.query('BEGIN');
      const out = await body(tx);
      await tx.query(commit ? 'COMMIT' : 'ROLLBACK');
      return out;
    } catch (err) {
      await tx.query('ROLLBACK');
      throw err;
    } finally {
      tx.release();
    }
  }

  it('a committed add runs once; before the commit no reader or worker sees it', async () => {
    const queue = new Queue<{ i: number }>('emails', { store });
    const runs = recorder('emails');
    const tx = await app.connect();
    await tx.query('BEGIN');
    await tx.query(`INSERT INTO ${schema}.orders (item) VALUES ('book')`);
    const job = await queue.add('confirm', { i: 1 }, { tx });
    // Outside the transaction: no job, no order, nothing claimed.
    expect(await queue.getJob(job.id)).toBeNull();
    expect((await queue.getCounts()).waiting).toBe(0);
    expect((await app.query(`SELECT count(*)::int AS n FROM ${schema}.orders`)).rows[0].n).toBe(0);
    await tx.query('COMMIT');
    tx.release();
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { message: 'the committed job to complete' });
    expect(runs.get(1)).toBe(1);
    expect((await app.query(`SELECT count(*)::int AS n FROM ${schema}.orders`)).rows[0].n).toBe(1);
    expect(await queue.verify()).toEqual([]);
  });

  it('a rolled-back add never runs and leaves nothing; addBulk and flows.add roll back whole too', async () => {
    const queue = new Queue<{ i: number }>('emails', { store });
    const runs = recorder('emails');
    const flows = new FlowProducer({ store });
    const ids = await inTransaction(false, async (tx) => {
      const one = await queue.add('confirm', { i: 1 }, { tx });
      const bulk = await queue.addBulk([{ name: 'confirm', data: { i: 2 } }, { name: 'confirm', data: { i: 3 } }], { tx });
      const tree = await flows.add({ name: 'parent', queueName: 'emails', data: { i: 4 }, children: [{ name: 'child', queueName: 'emails', data: { i: 5 } }] }, { tx });
      return [one.id, ...bulk.map((j) => j.id), tree.job.id, tree.children![0]!.job.id];
    });
    // A committed job added after them: once it ran, a worker has been through the queue.
    const sentinel = await inTransaction(true, (tx) => queue.add('confirm', { i: 99 }, { tx }));
    await waitFor(async () => (await queue.getJob(sentinel.id))?.state === 'completed', { message: 'the committed sentinel to complete' });
    expect([...runs.keys()]).toEqual([99]);
    for (const id of ids) expect(await queue.getJob(id)).toBeNull();
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, delayed: 0, 'waiting-children': 0, completed: 1 });
  });

  it('flows.add with { tx } writes the whole tree on commit; the parent runs after its child', async () => {
    const queue = new Queue<{ i: number }>('steps', { store });
    const runs = recorder('steps');
    const flows = new FlowProducer({ store });
    const tree = await inTransaction(true, (tx) =>
      flows.add({ name: 'parent', queueName: 'steps', data: { i: 1 }, children: [{ name: 'child', queueName: 'steps', data: { i: 2 } }] }, { tx }),
    );
    await waitFor(async () => (await queue.getJob(tree.job.id))?.state === 'completed', { message: 'the parent to complete' });
    expect(runs).toEqual(new Map([[2, 1], [1, 1]]));
  });

  it('1,000 concurrent transactions, half rolled back: exactly the committed half run, once each', async () => {
    const queue = new Queue<{ i: number }>('orders', { store });
    const runs = recorder('orders', 20);
    const N = 1000;
    let next = 0;
    // 20 transactions open at a time (the app pool's size), each an order row and its job.
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        for (let i = next++; i < N; i = next++) {
          await inTransaction(i % 2 === 0, async (tx) => {
            await tx.query(`INSERT INTO ${schema}.orders (item) VALUES ($1)`, [`order ${i}`]);
            await queue.add('confirm', { i }, { tx });
          });
        }
      }),
    );
    await waitFor(async () => (await queue.getCounts()).completed === N / 2, { timeout: 60_000, interval: 100, message: `${N / 2} committed jobs to complete` });
    const sentinel = await queue.add('confirm', { i: -1 });
    await waitFor(async () => (await queue.getJob(sentinel.id))?.state === 'completed', { message: 'the sentinel to complete' });
    runs.delete(-1);
    const ran = [...runs.keys()].sort((a, b) => a - b);
    expect(ran).toEqual(Array.from({ length: N / 2 }, (_, k) => 2 * k));
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect((await app.query(`SELECT count(*)::int AS n FROM ${schema}.orders`)).rows[0].n).toBe(N / 2);
    expect(await queue.verify()).toEqual([]);
  }, 120_000);

  it('{ tx } on a queue whose store cannot write in it (Redis, until the outbox exists) is refused with a typed error, and nothing is written', async () => {
    const redis = await testStore();
    closers.push(() => redis.disconnect());
    const queue = new Queue('emails', { store: redis });
    await inTransaction(false, async (tx) => {
      await expect(queue.add('confirm', {}, { tx })).rejects.toThrow(TransactionalEnqueueUnsupportedError);
      await expect(queue.addBulk([{ name: 'confirm', data: {} }], { tx })).rejects.toThrow(/options\.tx cannot be used on queue "emails"/);
      await expect(new FlowProducer({ store: redis }).add({ name: 'p', queueName: 'emails' }, { tx })).rejects.toThrow(TransactionalEnqueueUnsupportedError);
    });
    expect((await queue.getCounts()).waiting).toBe(0);
    await expect(new Queue('emails', { store }).add('confirm', {}, { tx: { nope: true } as never })).rejects.toThrow(/options\.tx must be your open transaction, got an object with key nope: pass a node-postgres client after BEGIN/);
  });
});
