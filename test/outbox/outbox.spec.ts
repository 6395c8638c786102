import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import pg from 'pg';
import { FlowProducer, getQueueToken, OnJob, Processor, QueueModule, Queue, RedisStore, SpoolBootstrapError, TransactionalEnqueueUnsupportedError, Worker, type ActiveJob } from '../../lib/index.js';
import { Outbox, OutboxRelay, type RelayStep } from '../../lib/outbox/index.js';
import { uniqueSchema, usePostgresServer } from '../helpers/postgres.js';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { waitFor } from '../helpers/wait-for.js';
import { cliEnv, expectCleanError, runCli } from '../cli/cli.js';

/**
 * The outbox: a RedisStore with option `outbox` writes `{ tx }` adds as rows in
 * the caller's PostgreSQL transaction, and OutboxRelay moves committed rows to
 * Redis, one job per row even when the relay crashes mid-move.
 * A private PostgreSQL and a private redis-server, shared by the file's tests.
 */
const server = usePostgresServer();

/** The Nest app's processor: what it ran, in order. */
@Injectable()
class Journal {
  readonly ran: number[] = [];
}

@Processor('nest-mail')
class MailProcessor {
  constructor(private readonly journal: Journal) {}

  @OnJob('confirm')
  confirm(job: ActiveJob<{ i: number }>): void {
    this.journal.ran.push(job.data.i);
  }
}
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
    // An idle client's error (the restart test) must not crash the test process: the pool drops that client.
    app.on('error', () => undefined);
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
    // The job can complete before the relay's delete commits (Redis first, then the rows' transaction).
    await waitFor(async () => (await rowsLeft()) === 0, { message: 'the moved rows to be deleted' });
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
    await waitFor(async () => (await rowsLeft()) === 0, { message: "the sentinel's row to be deleted" });
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
    await waitFor(async () => (await rowsLeft()) === 0, { message: 'the last moved rows to be deleted' });
    expect(await queue.verify()).toEqual([]);
  }, 30_000);

  /** A copy of the row of `jobId` under a new id, its job changed by `patch` (SQL jsonb): a row no engine would write. */
  async function forgeRow(tx: pg.PoolClient, from: string, id: string, job: string): Promise<void> {
    await tx.query(
      `INSERT INTO ${schema}.outbox (queue, job_id, job, created_ms) SELECT queue, $2, ${job}, created_ms FROM ${schema}.outbox WHERE job_id = $1`,
      [from, id],
    );
  }

  it('poison rows: each refusal is counted, later rows wait (order kept), set aside after maxAttempts; failed() shows them, retry() and discard() act on them', async () => {
    const queue = new Queue<{ i: number }>('emails', { store });
    const order: number[] = [];
    const worker = new Worker<{ i: number }>('emails', async (job) => void order.push(job.data.i), { store, concurrency: 1 });
    closers.push(async () => void (await worker.close({ timeout: 2000 })));
    await inTransaction(true, async (tx) => {
      await queue.add('confirm', { i: 1 }, { tx, jobId: 'one' });
      // A row that holds no job the relay can add (no name): refused by the relay's check of the row.
      await forgeRow(tx, 'one', 'bad-shape', `job - 'name' || '{"id":"bad-shape"}'`);
      await queue.add('confirm', { i: 3 }, { tx, jobId: 'three' });
      // A row Redis itself refuses: a dedup without a key makes the add script fail (a permanent ScriptError).
      await forgeRow(tx, 'three', 'bad-redis', `job || '{"id":"bad-redis","dedup":{"ttl":0}}'`);
      await queue.add('confirm', { i: 5 }, { tx, jobId: 'five' });
    });
    const errors: string[] = [];
    const r = new OutboxRelay({ outbox, store, maxAttempts: 3, logger: { log: () => undefined, warn: () => undefined, error: (m: string) => void errors.push(m) } });
    const present = async (): Promise<string[]> => {
      const ids = ['one', 'bad-shape', 'three', 'bad-redis', 'five'];
      const found = await Promise.all(ids.map((id) => queue.getJob(id)));
      return ids.filter((_, k) => found[k] !== null);
    };
    // Drain 1 moves the first row and stops at the malformed one; drains 2 and 3 count it again, and the third sets it aside
    // and moves on, to stop at the row Redis refuses, set aside at drain 5; then the last row moves.
    const moved: number[] = [];
    for (let d = 0; d < 5; d++) moved.push(await r.drain());
    expect(moved).toEqual([1, 0, 1, 0, 1]);
    expect(await present()).toEqual(['one', 'three', 'five']);
    const failed = await outbox.failed();
    expect(failed.map((f) => [f.jobId, f.queue, f.name, f.attempts])).toEqual([
      ['bad-shape', 'emails', null, 3],
      ['bad-redis', 'emails', 'confirm', 3],
    ]);
    expect(failed[0]!.error).toMatch(/job\.name must be a string, got undefined/);
    expect(failed[1]!.error).toMatch(/script add failed/);
    expect(failed.every((f) => f.failedAt >= f.createdAt)).toBe(true);
    expect(errors).toEqual([expect.stringMatching(/row \d+ .*refused \(3\/3\).*set aside/), expect.stringMatching(/row \d+ .*refused \(3\/3\).*set aside/)]);
    await waitFor(() => order.length === 3, { message: 'the three good jobs to run' });
    expect(order).toEqual([1, 3, 5]); // in their order of commit
    expect(await r.drain()).toBe(0); // set aside: not tried again

    // Repaired (the row's job given its name back) and retried: it moves, keeping its place before younger rows.
    await app.query(`UPDATE ${schema}.outbox SET job = job || '{"name":"confirm"}' WHERE job_id = 'bad-shape'`);
    await expect(outbox.retry(['x1'])).rejects.toThrow('outbox seqs[0] must be one of the row numbers failed() lists (a string of digits), got "x1"');
    expect(await outbox.retry([failed[0]!.seq])).toBe(1);
    expect(await r.drain()).toBe(1);
    await waitFor(async () => (await queue.getJob('bad-shape'))?.state === 'completed', { message: 'the repaired row to run' });
    expect(await outbox.discard()).toBe(1);
    expect(await rowsLeft()).toBe(0);
    expect(await outbox.failed()).toEqual([]);
  });

  it('spool outbox failed / retry / discard: the set-aside rows from the command line (no Redis needed)', async () => {
    const queue = new Queue<{ i: number }>('emails', { store });
    await inTransaction(true, async (tx) => {
      await queue.add('confirm', { i: 1 }, { tx, jobId: 'one' });
      await forgeRow(tx, 'one', 'bad-1', `job - 'data' || '{"id":"bad-1"}'`);
      await forgeRow(tx, 'one', 'bad-2', `job - 'data' || '{"id":"bad-2"}'`);
    });
    const r = new OutboxRelay({ outbox, store, maxAttempts: 1, logger: { log: () => undefined, warn: () => undefined, error: () => undefined } });
    expect(await r.drain()).toBe(1);
    const env = cliEnv('unused');
    const args = ['--postgres-url', server().url(), '--outbox-schema', schema];
    const listed = await runCli(['outbox', 'failed', ...args, '--json'], env);
    expect(listed.code).toBe(0);
    const rows = JSON.parse(listed.stdout) as { seq: string; jobId: string; attempts: number; error: string }[];
    expect(rows.map((row) => [row.jobId, row.attempts])).toEqual([['bad-1', 1], ['bad-2', 1]]);
    expect(rows[0]!.error).toMatch(/job\.data must be a string/);
    const human = await runCli(['outbox', 'failed', ...args], env);
    expect(human.stdout).toMatch(new RegExp(`^${rows[0]!.seq}  emails  bad-1 \\(confirm\\)  1 attempts, failed .*\\n    outbox row: job\\.data`));

    expectCleanError(await runCli(['outbox', 'discard', rows[0]!.seq, ...args], env), /refusing to delete 1 failed outbox row\(s\) for good without confirmation.*--yes/);
    expectCleanError(await runCli(['outbox', 'retry', ...args], env), /needs row numbers or --all/);
    expectCleanError(await runCli(['outbox', 'failed', '--postgres-url', server().url(), '--outbox-schema', 'nothing_here'], env), /no outbox table in schema "nothing_here"/);
    expect(await runCli(['outbox', 'discard', rows[0]!.seq, ...args, '--yes'], env)).toMatchObject({ code: 0, stdout: '1 failed row(s) deleted\n' });
    // Repaired, then put back by the CLI: the relay moves it.
    await app.query(`UPDATE ${schema}.outbox SET job = job || '{"data":"{\\"i\\":2}"}' WHERE job_id = 'bad-2'`);
    expect(JSON.parse((await runCli(['outbox', 'retry', '--all', ...args, '--json'], env)).stdout)).toEqual({ retried: 1 });
    expect(await r.drain()).toBe(1);
    expect((await queue.getJob('bad-2'))?.data).toEqual({ i: 2 });
    expect(await rowsLeft()).toBe(0);
  });

  it('a refusal that passes (a full queue) is not counted: the row waits however many moves it takes, then moves', async () => {
    const queue = new Queue<{ i: number }>('full', { store });
    await queue.configure({ maxWaiting: 1 });
    await queue.add('confirm', { i: 0 }); // the queue is full: nobody works it
    const job = await inTransaction(true, (tx) => queue.add('confirm', { i: 1 }, { tx }));
    const r = new OutboxRelay({ outbox, store, maxAttempts: 2, logger: { log: () => undefined, warn: () => undefined, error: () => undefined } });
    for (let d = 0; d < 4; d++) await expect(r.drain()).rejects.toThrow(/is full/);
    expect((await app.query(`SELECT attempts, failed_ms FROM ${schema}.outbox`)).rows).toEqual([{ attempts: 0, failed_ms: null }]);
    await queue.configure({ maxWaiting: null });
    expect(await r.drain()).toBe(1);
    expect((await queue.getJob(job.id))?.state).toBe('waiting');
  });

  it('Redis down is not a refusal either: the rows wait uncounted through the outage, then move', async () => {
    const own = await RedisServer.start();
    const down = new RedisStore({ url: own.url }, { prefix: schema, outbox, logger: { log: () => undefined, warn: () => undefined, error: () => undefined } });
    try {
      await down.connect();
      const queue = new Queue<{ i: number }>('emails', { store: down });
      const job = await inTransaction(true, (tx) => queue.add('confirm', { i: 1 }, { tx }));
      const r = new OutboxRelay({ outbox, store: down, maxAttempts: 1, logger: { log: () => undefined, warn: () => undefined, error: () => undefined } });
      await own.stop();
      for (let d = 0; d < 3; d++) await expect(r.drain()).rejects.toThrow(/unreachable/);
      expect((await app.query(`SELECT attempts, failed_ms FROM ${schema}.outbox`)).rows).toEqual([{ attempts: 0, failed_ms: null }]);
      await own.restart();
      await waitFor(async () => r.drain().then((n) => n === 1, () => false), { timeout: 10_000, interval: 100, message: 'the move once Redis answers' });
      expect((await queue.getJob(job.id))?.state).toBe('waiting');
    } finally {
      await down.disconnect();
      await own.dispose();
    }
  });

  it('PostgreSQL restarted: the relay listens again by itself (a one-minute poll cannot explain the move)', async () => {
    const queue = new Queue<{ i: number }>('emails', { store });
    recorder('emails');
    const r = new OutboxRelay({ outbox, store, pollMs: 60_000, logger: { log: () => undefined, warn: () => undefined, error: () => undefined } });
    closers.push(() => r.stop());
    await r.start();
    // An outbox with a pool of its own (connectionString), one idle connection in it: the restart must not crash the process.
    const owned = new Outbox({ connectionString: server().url(), schema });
    closers.push(() => owned.disconnect());
    expect(await owned.failed()).toEqual([]);
    await server().stop();
    await server().restart();
    // The app's pool's old connections are dead: the first queries on them fail, as after any restart.
    await waitFor(async () => app.query('SELECT 1').then(() => true, () => false), { timeout: 10_000, message: 'the app pool to reconnect' });
    const started = Date.now();
    let id: string | undefined;
    await waitFor(async () => (id = (await inTransaction(true, (tx) => queue.add('confirm', { i: 1 }, { tx })).catch(() => undefined))?.id) !== undefined, {
      timeout: 10_000,
      message: 'a committed add after the restart',
    });
    await waitFor(async () => (await queue.getJob(id!))?.state === 'completed', { timeout: 10_000, message: 'the row committed after the restart to be moved and run' });
    expect(Date.now() - started).toBeLessThan(8000);
    await waitFor(async () => owned.failed().then(() => true, () => false), { message: "the owned pool's next query to reconnect" });
  });

  it('a RedisStore without an outbox still refuses { tx }; a bad outbox option is refused', async () => {
    const plain = new RedisStore({ url: redis.url }, { prefix: `${schema}p` });
    closers.push(() => plain.disconnect());
    const queue = new Queue('emails', { store: plain });
    const refusal = (err: unknown) => [(err as TransactionalEnqueueUnsupportedError).refusal, (err as Error).message];
    await inTransaction(false, async (tx) => {
      const err = await queue.add('confirm', {}, { tx }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransactionalEnqueueUnsupportedError);
      expect(refusal(err)).toEqual(['store', expect.stringMatching(/options\.tx cannot be used on queue "emails".*give the RedisStore an outbox \(spool\/outbox\)/)]);
    });
    // Flows through an outbox are not built yet: refused, not silently written to Redis outside the transaction.
    await inTransaction(false, async (tx) => {
      const err = await new FlowProducer({ store }).add({ name: 'p', queueName: 'emails', data: {} }, { tx }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransactionalEnqueueUnsupportedError);
      expect(refusal(err)).toEqual(['flow-outbox', expect.stringMatching(/outbox takes add\(\) and addBulk\(\).*not flows.*add the flow after your transaction commits/)]);
    });
    // A sharded queue on the outbox store: its jobs spread over several Redis queues, an outbox row names one.
    await inTransaction(false, async (tx) => {
      const sharded = new Queue('emails-sharded', { store, shards: 2 });
      const err = await sharded.add('confirm', {}, { tx }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TransactionalEnqueueUnsupportedError);
      expect(refusal(err)).toEqual(['sharded', expect.stringMatching(/queue "emails-sharded".*sharded \(option shards\).*use a queue without shards/)]);
      const bulk = await sharded.addBulk([{ name: 'confirm', data: {} }], { tx }).catch((e: unknown) => e);
      expect(refusal(bulk)[0]).toBe('sharded');
    });
    expect(await rowsLeft()).toBe(0); // nothing written by any refusal
    expect(() => new RedisStore({ url: redis.url }, { outbox: {} as Outbox })).toThrow(/options\.outbox/);
    expect(() => new Outbox({ connectionString: 'x', schema: 'Bad-Name' })).toThrow(/schema/);
    expect(() => new OutboxRelay({ outbox, store, maxAttempts: 0 })).toThrow('OutboxRelay options.maxAttempts must be a whole number >= 1, got 0');
  });

  it('Nest: outboxRelay starts a relay at bootstrap (a committed add runs with no relay of the test) and stops it at shutdown', async () => {
    @Module({
      imports: [QueueModule.forRoot({ connection: { url: redis.url, prefix: schema, outbox, outboxRelay: { pollMs: 60_000, maxAttempts: 2 } } }), QueueModule.registerQueue('nest-mail')],
      providers: [Journal, MailProcessor],
    })
    class AppModule {}
    const checkedOut = (): number => app.totalCount - app.idleCount;
    expect(checkedOut()).toBe(0);
    const nest = await NestFactory.createApplicationContext(AppModule, { logger: false });
    let closed = false;
    closers.push(async () => void (closed || (await nest.close())));
    // Up before init() returns: its LISTEN connection (and its first move, maybe still under way) are the app pool's.
    expect(checkedOut()).toBeGreaterThanOrEqual(1);
    const queue = nest.get<Queue<{ i: number }>>(getQueueToken('nest-mail'));
    const journal = nest.get(Journal);
    await inTransaction(true, (tx) => queue.add('confirm', { i: 1 }, { tx }));
    await inTransaction(true, (tx) => queue.add('confirm', { i: 2 }, { tx }));
    // The one-minute poll cannot explain this: the relay heard the commits.
    await waitFor(() => journal.ran.length === 2, { message: 'the module relay to move both rows and the processor to run them' });
    expect(journal.ran).toEqual([1, 2]);
    // A job can run before the relay's delete commits (Redis first, then the rows' transaction).
    await waitFor(async () => (await rowsLeft()) === 0, { message: 'the moved rows to be deleted' });
    await nest.close();
    closed = true;
    expect(checkedOut()).toBe(0); // the relay gave its listener back: stopped
  });

  it('Nest: outboxRelay without an outbox, or with bad settings, fails the bootstrap naming the field', async () => {
    const boot = (connection: Record<string, unknown>) =>
      Test.createTestingModule({ imports: [QueueModule.forRoot({ connection: { url: redis.url, ...connection } })] }).compile().then(async (m) => {
        await m.init();
        await m.close();
      });
    await expect(boot({ outboxRelay: true })).rejects.toThrow(SpoolBootstrapError);
    await expect(boot({ outboxRelay: true })).rejects.toThrow(/connection\.outboxRelay needs an outbox on the same connection.*new Outbox/);
    await expect(boot({ outbox, outboxRelay: { pollMs: 0 } })).rejects.toThrow(/connection\.outboxRelay\.pollMs must be a whole number >= 1, got 0/);
    await expect(boot({ outbox, outboxRelay: { poll: 5 } })).rejects.toThrow(/outboxRelay\.poll/);
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
