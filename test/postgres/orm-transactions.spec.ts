import pg from 'pg';
import { DataSource, EntitySchema } from 'typeorm';
import { FlowProducer, InvalidArgumentError, Queue, RedisStore, Worker, type TransactionHandle } from '../../lib/index.js';
import type { Store } from '../../lib/store/store.js';
import { Outbox, OutboxRelay } from '../../lib/outbox/index.js';
import type { PostgresStore } from '../../lib/postgres/index.js';
import { generatePrismaClient, type TestPrismaClient } from '../helpers/prisma-client.js';
import { testPostgresStore, uniqueSchema, usePostgresServer } from '../helpers/postgres.js';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * `{ tx }` with the ORMs Nest apps use, on real ones: a TypeORM DataSource and
 * a generated Prisma 7 client (through @prisma/adapter-pg) on a private
 * PostgreSQL. Each handle saves an order through the ORM and adds its job in
 * the same transaction: commit → the order and the job exist and the job runs
 * once; rollback → neither exists and the job never runs. Both for
 * PostgresStore (the job row in the app's database) and for the outbox of a
 * RedisStore (the outbox row in the app's database, relayed to Redis).
 */
const server = usePostgresServer();
const redis = usePrivateRedis();

interface OrderRow {
  id: number;
  item: string;
}
const OrderEntity = new EntitySchema<OrderRow>({
  name: 'Order',
  tableName: 'orders',
  columns: { id: { type: Number, primary: true, generated: 'increment' }, item: { type: String } },
});

/** Saves one order through the ORM and calls `enqueue` with the ORM's transaction handle, then commits or rolls back. */
type Scope = (commit: boolean, item: string, enqueue: (tx: TransactionHandle) => Promise<string>) => Promise<string>;

class Rollback extends Error {}

/** Resolves once the server has no client connection left but the one asking (bounded). */
async function allClosed(url: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const others = async (): Promise<number> =>
      (await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()`)).rows[0].n as number;
    await waitFor(async () => (await others()) === 0, { timeout: 5000, message: 'every connection of the file to close' });
  } finally {
    await admin.end();
  }
}

describe('{ tx } from TypeORM and Prisma', () => {
  // One schema for the app's table and the Spool tables of this file; each test has its own queue.
  const schema = uniqueSchema('orm');
  let app: pg.Pool;
  let dataSource: DataSource;
  let prisma: TestPrismaClient;
  let disposePrisma: () => Promise<void>;
  let pgStore: PostgresStore;
  let outbox: Outbox;
  let redisStore: RedisStore;
  let relay: OutboxRelay;
  const closers: (() => Promise<void>)[] = [];
  const runs = new Map<string, number>();

  beforeAll(async () => {
    pgStore = await testPostgresStore(server(), schema);
    app = new pg.Pool({ connectionString: server().url(), max: 5 });
    await app.query(`CREATE TABLE ${schema}.orders (id serial PRIMARY KEY, item text NOT NULL)`);
    dataSource = new DataSource({ type: 'postgres', url: server().url(), schema, entities: [OrderEntity], poolSize: 3 });
    await dataSource.initialize();
    const generated = await generatePrismaClient();
    disposePrisma = generated.dispose;
    prisma = await generated.open(server().url(), schema);
    outbox = new Outbox({ pool: app, schema: `${schema}_outbox` });
    await outbox.connect();
    redisStore = new RedisStore({ url: redis.url }, { prefix: schema, outbox });
    await redisStore.connect();
    relay = new OutboxRelay({ outbox, store: redisStore, pollMs: 200, logger: { log: () => undefined, warn: () => undefined, error: () => undefined } });
    await relay.start();
  }, 90_000);

  afterAll(async () => {
    const steps = [
      ...closers.splice(0),
      () => relay.stop(),
      () => redisStore.disconnect(),
      () => outbox.disconnect(),
      () => prisma.$disconnect(),
      () => disposePrisma(),
      () => dataSource.destroy(),
      () => app.end(),
      () => pgStore.disconnect(),
      // NOTE: pool.end() resolves once its clients are told to end, not once the server has seen them go; the server's
      // fast shutdown (afterAll of usePostgresServer) would then fail a still-ending client with an unhandled error.
      () => allClosed(server().url()),
    ];
    for (const [i, step] of steps.entries()) await step().catch((err: unknown) => console.error('teardown step', i, err));
  });

  const scopes: Record<string, Scope> = {
    'TypeORM EntityManager': async (commit, item, enqueue) =>
      dataSource
        .transaction(async (manager) => {
          await manager.save(OrderEntity, { item });
          const id = await enqueue(manager);
          if (!commit) throw new Rollback();
          return id;
        })
        .catch(rolledBack),
    'TypeORM QueryRunner': async (commit, item, enqueue) => {
      const runner = dataSource.createQueryRunner();
      await runner.connect();
      await runner.startTransaction();
      try {
        await runner.manager.save(OrderEntity, { item });
        const id = await enqueue(runner);
        await (commit ? runner.commitTransaction() : runner.rollbackTransaction());
        return id;
      } finally {
        await runner.release();
      }
    },
    'Prisma $transaction client': async (commit, item, enqueue) =>
      prisma
        .$transaction(async (tx) => {
          await tx.order.create({ data: { item } });
          const id = await enqueue(tx);
          if (!commit) throw new Rollback();
          return id;
        })
        .catch(rolledBack),
  };

  function rolledBack(err: unknown): string {
    if (err instanceof Rollback) return '';
    throw err;
  }

  const stores: Record<string, () => Store> = { PostgresStore: () => pgStore, 'RedisStore + outbox': () => redisStore };

  /** A queue of its own and a worker counting the runs of its jobs by `item`. */
  function queueWithWorker(store: Store, name: string): Queue<{ item: string }> {
    const worker = new Worker<{ item: string }>(name, async (job) => void runs.set(job.data.item, (runs.get(job.data.item) ?? 0) + 1), { store });
    const queue = new Queue<{ item: string }>(name, { store });
    closers.push(async () => void (await worker.close({ timeout: 2000 })), () => queue.close());
    return queue;
  }

  const orderCount = async (item: string): Promise<number> => (await app.query(`SELECT count(*)::int AS n FROM ${schema}.orders WHERE item = $1`, [item])).rows[0].n as number;

  let n = 0;
  describe.each(Object.keys(stores))('%s', (storeName) => {
    it.each(Object.keys(scopes))('%s: commit → the order and its job, run once; rollback → neither, never run', async (scopeName) => {
      const store = stores[storeName]!();
      const queue = queueWithWorker(store, `q${++n}`);
      const scope = scopes[scopeName]!;
      const kept = `kept-${n}`;
      const dropped = `dropped-${n}`;

      // The rolled-back add first: had it survived, the worker (FIFO) would run it before the committed one.
      let droppedId = '';
      await scope(false, dropped, async (tx) => {
        droppedId = (await queue.add('confirm', { item: dropped }, { tx })).id;
        return droppedId;
      });
      const keptId = await scope(true, kept, async (tx) => {
        const job = await queue.add('confirm', { item: kept }, { tx });
        // Inside the transaction: seen by no one else yet (PostgresStore: an uncommitted row; outbox: nothing in Redis at all).
        expect(await queue.getJob(job.id)).toBeNull();
        return job.id;
      });

      expect(await orderCount(kept)).toBe(1);
      expect(await orderCount(dropped)).toBe(0);
      await waitFor(() => runs.get(kept) === 1, { timeout: 10_000, message: `the committed job of ${scopeName} to run` });
      expect((await queue.getJob(keptId))?.name).toBe('confirm');
      expect(await queue.getJob(droppedId)).toBeNull();
      expect(runs.get(dropped)).toBeUndefined();
      if (store === redisStore) {
        // The outbox: the rolled-back row never existed, the committed one is deleted once relayed.
        const rows = async (): Promise<number> => (await app.query(`SELECT count(*)::int AS n FROM ${schema}_outbox.outbox WHERE job_id = ANY($1)`, [[keptId, droppedId]])).rows[0].n as number;
        await waitFor(async () => (await rows()) === 0, { timeout: 5000, message: 'the relayed outbox row to be deleted' });
      }
      expect(runs.get(kept)).toBe(1);
    });
  });

  it('addBulk with a TypeORM manager and a Prisma tx: all jobs commit or roll back with the transaction', async () => {
    const queue = queueWithWorker(pgStore, 'bulk');
    await scopes['TypeORM EntityManager']!(false, 'bulk-a', async (tx) => (await queue.addBulk([1, 2, 3].map((i) => ({ name: 'b', data: { item: `bulk-a${i}` } })), { tx }))[0]!.id);
    await scopes['Prisma $transaction client']!(true, 'bulk-b', async (tx) => (await queue.addBulk([1, 2, 3].map((i) => ({ name: 'b', data: { item: `bulk-b${i}` } })), { tx }))[0]!.id);
    await waitFor(async () => (await queue.getCounts()).completed === 3, { timeout: 10_000, message: 'the committed bulk to complete' });
    expect(await queue.getCounts()).toMatchObject({ completed: 3, waiting: 0, active: 0 });
    expect([1, 2, 3].map((i) => runs.get(`bulk-b${i}`))).toEqual([1, 1, 1]);
    expect([1, 2, 3].map((i) => runs.get(`bulk-a${i}`))).toEqual([undefined, undefined, undefined]);
  });

  it('flows.add with a TypeORM QueryRunner and a Prisma tx: the whole tree commits or rolls back with the transaction', async () => {
    const queue = queueWithWorker(pgStore, 'flow');
    const flows = new FlowProducer({ store: pgStore });
    closers.push(() => flows.close());
    const tree = (item: string) => ({ name: 'parent', queueName: 'flow', data: { item: `${item}-parent` }, children: [{ name: 'child', queueName: 'flow', data: { item: `${item}-child` } }] });
    const droppedId = await scopes['Prisma $transaction client']!(false, 'flow-a', async (tx) => (await flows.add(tree('flow-a'), { tx })).job.id);
    const keptId = await scopes['TypeORM QueryRunner']!(true, 'flow-b', async (tx) => (await flows.add(tree('flow-b'), { tx })).job.id);
    await waitFor(async () => (await queue.getJob(keptId))?.state === 'completed', { timeout: 10_000, message: 'the committed parent to complete' });
    expect([runs.get('flow-b-child'), runs.get('flow-b-parent')]).toEqual([1, 1]);
    expect(await queue.getJob(droppedId)).toBeNull();
    expect([runs.get('flow-a-child'), runs.get('flow-a-parent')]).toEqual([undefined, undefined]);
  });

  it('a handle outside any transaction is refused with a typed error naming tx, and nothing is written', async () => {
    const queue = new Queue<{ item: string }>('refused', { store: pgStore });
    closers.push(() => queue.close());
    const idle = dataSource.createQueryRunner();
    closers.push(() => idle.release());
    const cases: [unknown, RegExp][] = [
      [dataSource.manager, /options\.tx is a TypeORM EntityManager outside a transaction.*dataSource\.transaction/],
      [idle, /options\.tx is a TypeORM QueryRunner with no open transaction.*startTransaction\(\)/],
      [prisma, /options\.tx is a PrismaClient, not the client of an interactive transaction.*\$transaction/],
      [app, /options\.tx is a node-postgres Pool, not a client inside a transaction.*pool\.connect\(\)/],
      [{ execute: () => undefined }, /options\.tx must be your open transaction, got .*node-postgres client.*TypeORM EntityManager.*QueryRunner.*Prisma/],
      ['postgres://x', /options\.tx must be your open transaction, got "postgres:\/\/x"/],
    ];
    for (const [tx, message] of cases) {
      const add = queue.add('x', { item: 'refused' }, { tx: tx as TransactionHandle });
      await expect(add).rejects.toThrow(InvalidArgumentError);
      await expect(add).rejects.toThrow(message);
    }
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, active: 0, delayed: 0 });
  });
});
