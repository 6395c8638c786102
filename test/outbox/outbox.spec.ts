import 'reflect-metadata';
import { Test } from '@nestjs/testing';
import pg from 'pg';
import { FlowProducer, getQueueToken, QueueModule, Queue, RedisStore, TransactionalEnqueueUnsupportedError, Worker } from '../../lib/index.js';
import { Outbox, OutboxRelay, type RelayStep } from '../../lib/outbox/index.js';
import { uniqueSchema, usePostgresServer } from '../helpers/postgres.js';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * The outbox: a RedisStore with option `outbox` writes `{ tx }` adds as rows in
 * the caller's PostgreSQL transaction, and OutboxRelay moves committed rows to
 * Redis, one job per row even when the relay crashes mid-move.
 * A private PostgreSQL and a private redis-server, shared by the file's tests.
 */
const server = usePostgresServer();
const redis = usePrivateRedis();

describe('outbox (RedisStore + PostgreSQL transaction)', () => {
  let app: pg.Pool;
  let outbox: Outbox;
  let store: RedisStore;
  let schema: string;
  const closers: (() => Promise<void>)[] = [];

  beforeEach(async () => {
    schema = uniqueSchema('ob');
    app = new pg.Pool({ connectionString: server().url(), max: 20 });
    outbox = new Outbox({ pool: app, schema });
    await outbox.connect();
    // A prefix of its own per test: queues of one test never see another's jobs.
    store = new RedisStore({ url: redis.url }, { prefix: schema, outbox });
    await store.connect();
    await app.query(`CREATE TABLE ${schema}.orders (id serial PRIMARY KEY, item text NOT NULL)`);
  });

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await store.disconnect();
    await outbox.disconnect();
    await app.end();
  });

  function recorder(queue: string, concurrency = 10): Map<number, number> {
    const runs = new Map<number, number>();
    const worker = new Worker<{ i: number }>(queue, async (job) => void runs.set(job.data.i, (runs.get(job.data.i) ?? 0) + 1), { store, concurrency });
    closers.push(async () => void (await worker.close({ timeout: 2000 })));
    return runs;
  }

  function relay(onStep?: (step: RelayStep, rows: number) => void): OutboxRelay {
    const r = new OutboxRelay({ outbox, store, pollMs: 200, logger: { log: () => undefined, warn: () => undefined, error: () => undefined }, ...(onStep && { onStep }) });
    closers.push(() => r.stop());
    return r;
  }

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

  const rowsLeft = async (): Promise<number> => (await app.query(`SELECT count(*)::int AS n FROM ${schema}.outbox`)).rows[0].n as number;

  it('a committed add writes a row, nothing in Redis; the relay (woken by NOTIFY) moves it and it runs once', async () => {
    const queue = new Queue<{ i: number }>('emails', { store });
    const runs = recorder('emails');
    const tx = await app.connect();
    await tx.query('BEGIN');
    await tx.query(`INSERT INTO ${schema}.orders (item) VALUES ('book')`);
    const job = await queue.add('confirm', { i: 1 }, { tx });
    expect(await queue.getJob(job.id)).toBeNull();
    expect(await rowsLeft()).toBe(0); // not committed: invisible outside
    await tx.query('COMMIT');
    tx.release();
    expect(await rowsLeft()).toBe(1);
    expect(await queue.getJob(job.id)).toBeNull(); // no relay yet: still nothing in Redis
    // A long poll: only the NOTIFY of the next commit can wake it in time; the first move happens on start.
    const r = new OutboxRelay({ outbox, store, pollMs: 60_000 });
    closers.push(() => r.stop());
    await r.start();
    await waitFor(async () => (await queue.getJob(job.id))?.state === 'completed', { message: 'the committed job to complete' });
    const second = await inTransaction(true, (t) => queue.add('confirm', { i: 2 }, { tx: t, jobId: 'order-2' }));
    expect(second.id).toBe('order-2');
    await waitFor(async () => (await queue.getJob('order-2'))?.state === 'completed', { timeout: 5000, message: 'the NOTIFY-woken move' });
    expect(runs).toEqual(new Map([[1, 1], [2, 1]]));
    expect(await rowsLeft()).toBe(0);
  });

  it('a rolled-back add and addBulk never run', async () => {
    const queue = new Queue<{ i: number }>('emails', { store });
    const runs = recorder('emails');
    await relay().start();
    const ids = await inTransaction(false, async (tx) => {
      const one = await queue.add('confirm', { i: 1 }, { tx });
      const bulk = await queue.addBulk([{ name: 'confirm', data: { i: 2 } }, { name: 'confirm', data: { i: 3 } }], { tx });
      return [one.id, ...bulk.map((j) => j.id)];
    });
    const sentinel = await inTransaction(true, (tx) => queue.add('confirm', { i: 99 }, { tx }));
    await waitFor(async () => (await queue.getJob(sentinel.id))?.state === 'completed', { message: 'the committed sentinel to complete' });
    expect([...runs.keys()]).toEqual([99]);
    for (const id of ids) expect(await queue.getJob(id)).toBeNull();
    expect(await rowsLeft()).toBe(0);
  });

  it.each<RelayStep>(['read', 'written'])('a relay crash after step %s leaves exactly one job per row (numbered and custom ids)', async (crashAt) => {
    const queue = new Queue<{ i: number }>('emails', { store });
    const runs = recorder('emails');
    const jobs = await inTransaction(true, async (tx) => [
      await queue.add('confirm', { i: 1 }, { tx }),
      await queue.add('confirm', { i: 2 }, { tx, jobId: 'custom-2' }),
    ]);
    let crashed = 0;
    const crashing = new OutboxRelay({ outbox, store, onStep: (step) => {
      if (step === crashAt) {
        crashed++;
        throw new Error(`crash after ${step}`);
      }
    } });
    await expect(crashing.drain()).rejects.toThrow(`crash after ${crashAt}`);
    expect(crashed).toBe(1);
    expect(await rowsLeft()).toBe(2); // the move rolled back: the rows stay
    // After the Redis write the jobs exist already; after the read only, not yet.
    expect((await queue.getJob(jobs[0]!.id)) !== null).toBe(crashAt === 'written');
    expect(await relay().drain()).toBe(2);
    expect(await rowsLeft()).toBe(0);
    await waitFor(async () => (await queue.getCounts()).completed === 2, { message: 'both jobs to complete' });
    expect(runs).toEqual(new Map([[1, 1], [2, 1]]));
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, active: 0, delayed: 0, completed: 2 });
  });

  it('250 concurrent transactions, half rolled back: exactly the committed half run, once each', async () => {
    const queue = new Queue<{ i: number }>('orders', { store });
    const runs = recorder('orders', 20);
    await relay().start();
    const N = 250;
    let next = 0;
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
    await waitFor(async () => (await queue.getCounts()).completed === N / 2, { timeout: 15_000, interval: 50, message: `${N / 2} committed jobs to complete` });
    const sentinel = await queue.add('confirm', { i: -1 });
    await waitFor(async () => (await queue.getJob(sentinel.id))?.state === 'completed', { message: 'the sentinel to complete' });
    runs.delete(-1);
    expect([...runs.keys()].sort((a, b) => a - b)).toEqual(Array.from({ length: N / 2 }, (_, k) => 2 * k));
    expect([...runs.values()].every((n) => n === 1)).toBe(true);
    expect(await rowsLeft()).toBe(0);
    expect(await queue.verify()).toEqual([]);
  }, 30_000);

  it('a RedisStore without an outbox still refuses { tx }; a bad outbox option is refused', async () => {
    const plain = new RedisStore({ url: redis.url }, { prefix: `${schema}p` });
    closers.push(() => plain.disconnect());
    const queue = new Queue('emails', { store: plain });
    await inTransaction(false, async (tx) => {
      await expect(queue.add('confirm', {}, { tx })).rejects.toThrow(TransactionalEnqueueUnsupportedError);
    });
    // Flows through an outbox are not built yet: refused, not silently written to Redis outside the transaction.
    await inTransaction(false, async (tx) => {
      await expect(new FlowProducer({ store }).add({ name: 'p', queueName: 'emails', data: {} }, { tx })).rejects.toThrow(TransactionalEnqueueUnsupportedError);
    });
    expect(() => new RedisStore({ url: redis.url }, { outbox: {} as Outbox })).toThrow(/options\.outbox/);
    expect(() => new Outbox({ connectionString: 'x', schema: 'Bad-Name' })).toThrow(/schema/);
  });

  it('Nest: the connection option outbox makes an injected queue write { tx } adds to the outbox', async () => {
    const app = await Test.createTestingModule({
      imports: [QueueModule.forRoot({ connection: { url: redis.url, prefix: schema, outbox } }), QueueModule.registerQueue('nest-mail')],
    }).compile();
    await app.init();
    closers.push(() => app.close());
    const queue = app.get<Queue<{ i: number }>>(getQueueToken('nest-mail'));
    const job = await inTransaction(true, (tx) => queue.add('confirm', { i: 7 }, { tx }));
    expect(await rowsLeft()).toBe(1);
    expect(await queue.getJob(job.id)).toBeNull();
    // The relay adds through the test's own store (same Redis and prefix): the Nest queue then reads the job.
    expect(await relay().drain()).toBe(1);
    expect((await queue.getJob(job.id))?.data).toEqual({ i: 7 });
  });
});
