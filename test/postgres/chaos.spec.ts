import pg from 'pg';
import { Queue, QueueEvents, spoolHttpError, StoreError } from '../../lib/index.js';
import { PostgresCallError, PostgresConflictError, PostgresUnavailableError, type PostgresStore } from '../../lib/postgres/index.js';
import { postgresError } from '../../lib/postgres/errors.js';
import { testPostgresStore, uniqueSchema, usePostgresServer } from '../helpers/postgres.js';
import { waitFor } from '../helpers/wait-for.js';
import { WorkerProcess, type WorkerProcessConfig } from '../helpers/worker-process.js';

/**
 * Chaos on PostgreSQL: a worker process killed with SIGKILL mid-job, and the
 * server itself stopped with `pg_ctl stop -m immediate` (SIGQUIT to the
 * postmaster: no checkpoint, crash recovery from the WAL on restart) while
 * producers add and worker processes work. One private, durable server
 * (fsync on) for the file; each test has its own schema.
 */
const server = usePostgresServer({ durable: true });

/** Short leases, so a dead worker's job comes back in about a second and a half. */
const FAST = { lockDuration: 1500, stalledInterval: 400, pollInterval: 500 } as const;

describe('chaos on PostgreSQL', () => {
  let store: PostgresStore;
  let schema: string;
  const workers: WorkerProcess[] = [];

  beforeEach(async () => {
    schema = uniqueSchema('chaos');
    store = await testPostgresStore(server(), schema);
  });

  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.kill()));
    await store.disconnect();
  });

  async function worker(config: Partial<WorkerProcessConfig> = {}): Promise<WorkerProcess> {
    const w = await WorkerProcess.start({ postgres: { connectionString: server().url(), schema }, queue: 'q', worker: FAST, ...config });
    workers.push(w);
    return w;
  }

  it('a worker process SIGKILLed mid-job: the job is re-delivered to another after its lease and completes once, a stall counted', async () => {
    const queue = new Queue('q', { store });
    const first = await worker({ holdMs: 60_000 });
    await queue.add('work', { n: 1 }, { jobId: 'mid-job' });
    await waitFor(() => first.started().some((m) => m.id === 'mid-job'), { timeout: 10_000, message: 'the first worker to start the job' });
    await first.kill();
    expect((await queue.getJob('mid-job'))?.state).toBe('active');

    const second = await worker({ holdMs: 10 });
    await waitFor(async () => (await queue.getJob('mid-job'))?.state === 'completed', { timeout: 15_000, interval: 50, message: 'the job to complete on the second worker' });
    // The completion commits before the child's IPC message reaches this process.
    await waitFor(() => second.completed().length === 1, { timeout: 5000, message: 'the second worker to report the completion' });
    expect((await queue.getJob('mid-job'))?.stalled).toBe(1);
    expect(second.completed().map((m) => m.id)).toEqual(['mid-job']);
    expect(first.completed()).toEqual([]);
    await second.close();
    expect(await queue.verify()).toEqual([]);
  });

  it('stop -m immediate and restart under load: no acknowledged add lost, producers and idle workers recover by themselves, verify clean', async () => {
    const queue = new Queue('q', { store });
    // A one-minute poll: only reconnect handling (LISTEN again, look for work) explains a prompt recovery.
    const procs = [await worker({ worker: { ...FAST, pollInterval: 60_000, concurrency: 4 } }), await worker({ worker: { ...FAST, pollInterval: 60_000, concurrency: 4 } })];
    const acknowledged = new Set<string>();
    let addErrors = 0;
    let stopped = false;
    let next = 0;
    // Each lane adds one job at a time with an id of its own; a failed add is repeated with the same id (an add
    // whose commit happened but whose reply was lost then finds the job: no double), until it is acknowledged.
    const lane = async (): Promise<void> => {
      while (!stopped) {
        const id = `j${next++}`;
        for (;;) {
          try {
            await queue.add('work', { id }, { jobId: id });
            acknowledged.add(id);
            break;
          } catch {
            addErrors++;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
      }
    };
    // An event reader across the restart: it waits the outage out (typed, retryable errors) and reads on.
    const events = new QueueEvents('q', { store, blockMs: 200 });
    const heard = new Set<string>();
    events.on('completed', (e) => heard.add(e.jobId));
    events.on('error', () => undefined); // the outage, reported while it lasts
    await events.ready();
    const producing = Promise.all([lane(), lane()]);
    await waitFor(() => acknowledged.size >= 150, { timeout: 15_000, interval: 20, message: '150 adds acknowledged' });
    await server().stopImmediate();
    await new Promise((r) => setTimeout(r, 500)); // the outage: producers and workers keep trying
    await server().restart();
    const atRestart = acknowledged.size;
    await waitFor(() => acknowledged.size >= atRestart + 150, { timeout: 20_000, interval: 20, message: 'producers to recover after the restart' });
    stopped = true;
    await producing;
    expect(addErrors).toBeGreaterThan(0); // the outage was felt

    const settled = async (): Promise<boolean> => {
      const c = await queue.getCounts();
      return c.waiting + c.delayed + c.active === 0;
    };
    await waitFor(settled, { timeout: 20_000, interval: 100, message: 'every job to finish after the restart' });
    const completed = new Set(await store.listIds('q', 'completed', 0, -1));
    const lost = [...acknowledged].filter((id) => !completed.has(id));
    expect({ acknowledged: acknowledged.size > 300, lost }).toEqual({ acknowledged: true, lost: [] });

    // Idle workers after the restart: the next add wakes them well within their one-minute poll.
    const addedAt = Date.now();
    await queue.add('work', { id: 'after' }, { jobId: 'after' });
    await waitFor(async () => (await queue.getJob('after'))?.state === 'completed', { timeout: 10_000, interval: 20, message: 'a job added after the restart to run' });
    expect(Date.now() - addedAt).toBeLessThan(5000);
    await waitFor(() => heard.has('after'), { timeout: 5000, message: 'the event reader to hear the completion after the restart' });
    await events.close();
    expect(procs.every((p) => p.completed().length > 0)).toBe(true);
    await Promise.all(procs.map((p) => p.close()));
    expect(await queue.verify()).toEqual([]);
  }, 60_000);

  it('errors are typed by what they mean: a deadlock passes (retryable), a wrong call is permanent, a stopped server is unavailable', async () => {
    // A real deadlock between two sessions locking two rows in opposite orders: the server cancels one of them.
    const a = new pg.Client({ connectionString: server().url() });
    const b = new pg.Client({ connectionString: server().url() });
    await Promise.all([a.connect(), b.connect()]);
    try {
      await a.query(`CREATE TABLE ${schema}.locks (id int PRIMARY KEY); INSERT INTO ${schema}.locks VALUES (1), (2)`);
      await a.query('BEGIN');
      await b.query('BEGIN');
      await a.query(`SELECT * FROM ${schema}.locks WHERE id = 1 FOR UPDATE`);
      await b.query(`SELECT * FROM ${schema}.locks WHERE id = 2 FOR UPDATE`);
      const outcomes = await Promise.allSettled([
        a.query(`SELECT * FROM ${schema}.locks WHERE id = 2 FOR UPDATE`),
        b.query(`SELECT * FROM ${schema}.locks WHERE id = 1 FOR UPDATE`),
      ]);
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      expect(refused).toHaveLength(1);
      const typed = postgresError('complete', refused[0]!.reason);
      expect(typed).toBeInstanceOf(PostgresConflictError);
      expect(typed).toMatchObject({ sqlState: '40P01', permanent: false });
      expect(typed.message).toMatch(/complete.*40P01.*retry it/);
      expect(spoolHttpError(typed)).toMatchObject({ status: 503, retryAfter: 5 });
    } finally {
      await Promise.all([a.query('ROLLBACK'), b.query('ROLLBACK')]);
      await Promise.all([a.end(), b.end()]);
    }
    // A call the database refuses for good (here a function that does not exist): permanent.
    const c = new pg.Client({ connectionString: server().url() });
    await c.connect();
    const missing = await c.query(`SELECT ${schema}.no_such_function()`).then(() => undefined, (err: unknown) => err);
    await c.end();
    expect(postgresError('add', missing)).toBeInstanceOf(PostgresCallError);
    expect(postgresError('add', missing)).toMatchObject({ permanent: true });
    expect(spoolHttpError(postgresError('add', missing))).toBeUndefined(); // a bug: Nest's default 500
    // The store's own calls against a stopped server: unavailable, not permanent (a worker waits it out).
    await server().stop();
    try {
      const down = await new Queue('q', { store }).add('work', {}).then(() => undefined, (err: unknown) => err);
      expect(down).toBeInstanceOf(PostgresUnavailableError);
      expect(down).toBeInstanceOf(StoreError);
      expect(down).toMatchObject({ permanent: false });
      // Through SpoolExceptionFilter: a 503 with Retry-After, as for Redis down.
      expect(spoolHttpError(down)).toMatchObject({ status: 503, retryAfter: 5 });
    } finally {
      await server().restart();
    }
  });
});
