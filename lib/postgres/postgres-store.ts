import type { Pool, PoolConfig } from 'pg';
import { InvalidArgumentError } from '../common/errors.js';
import { assertKnownKeys, assertPlainObject } from '../common/validation.js';
import type { NotifyAdapter } from '../notify/notify-adapter.js';
import { singleCompletion } from '../store/completion.js';
import { StoreNotConnectedError } from '../store/errors.js';
import type * as S from '../store/store.js';
import { fetchArgs, flowNodeJson, jobJson } from './encode.js';
import { postgresError, PostgresUnavailableError } from './errors.js';
import { checkSchema, checkSchemaName, migrateSchema, type Queryable } from './migrate.js';
import { loadPg } from './peer.js';
import { PostgresEventReader } from './postgres-events.js';
import { PostgresNotify } from './postgres-notify.js';
import { PostgresSchedulers } from './postgres-schedulers.js';
import * as R from './postgres-reads.js';
import { PostgresStoreOps } from './postgres-store-ops.js';
import { arrayOf, jobsOf, objectOf, toJobRecord } from './rows.js';

/** Options of `new PostgresStore(...)`: where the database is, which schema, and whether to migrate it on connect. */
export interface PostgresStoreOptions {
  /** postgres://user:password@host:port/database. Give this or `pool`. */
  readonly connectionString?: string;
  /** The app's own node-postgres pool (not ended by disconnect()). Give this or `connectionString`. */
  readonly pool?: Pool;
  /** The PostgreSQL schema of Spool's tables and functions (default `spool`). */
  readonly schema?: string;
  /** Create or upgrade the schema on connect() (default false: connect() checks the version and refuses a missing or newer one). */
  readonly migrate?: boolean;
  /** Connections of the pool this store opens (default 10; ignored with `pool`). */
  readonly poolSize?: number;
  /** Wake-ups between processes (default PostgresNotify: LISTEN/NOTIFY on the store's database). */
  readonly notify?: NotifyAdapter;
}

const OPTION_KEYS = ['connectionString', 'pool', 'schema', 'migrate', 'poolSize', 'notify'] as const;

/**
 * A Store on PostgreSQL: one `jobs` table with the state as a column, every
 * transition one SQL function (sql/functions, each named and headed like its
 * Lua twin in lua/), claims with FOR UPDATE SKIP LOCKED, lease tokens checked
 * on every write. Queue, Worker and FlowProducer run on it unchanged.
 *
 * @example
 * const store = new PostgresStore({ connectionString: process.env.DATABASE_URL, migrate: true });
 * await store.connect();
 * const queue = new Queue('emails', { store });
 */
export class PostgresStore extends PostgresStoreOps implements S.Store {
  readonly notify: NotifyAdapter;
  readonly schema: string;
  /** Cron and every-N schedulers: a pending tick is a delayed job, promote() advances due schedulers. */
  readonly schedulers = new PostgresSchedulers(
    (fn, args) => this.call(fn, args),
    (what, body) => this.read(what, body),
  );
  private pool: Pool | undefined;
  private readonly ownsPool: boolean;
  private connecting: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: PostgresStoreOptions) {
    super();
    const given: unknown = options;
    assertPlainObject(given, 'PostgresStore options');
    assertKnownKeys(given, [...OPTION_KEYS], 'PostgresStore options');
    if ((options.connectionString === undefined) === (options.pool === undefined)) {
      throw new InvalidArgumentError('PostgresStore options', 'needs exactly one of connectionString and pool', "e.g. { connectionString: 'postgres://user@localhost/app' }");
    }
    this.schema = checkSchemaName(options.schema ?? 'spool');
    this.ownsPool = options.pool === undefined;
    this.pool = options.pool;
    const client = options.connectionString !== undefined ? { connectionString: options.connectionString } : poolClientConfig(options.pool!);
    this.notify = options.notify ?? new PostgresNotify({ client, schema: this.schema });
  }

  connect(): Promise<void> {
    if (this.closed) return Promise.reject(new StoreNotConnectedError('connect()'));
    this.connecting ??= this.open().catch((err: unknown) => {
      this.connecting = undefined;
      const typed = postgresError('connect()', err);
      throw typed instanceof PostgresUnavailableError ? typed : err;
    });
    return this.connecting;
  }

  private async open(): Promise<void> {
    if (!this.pool) {
      const pg = await loadPg();
      const config: PoolConfig = { connectionString: this.options.connectionString, max: this.options.poolSize ?? 10 };
      this.pool = new pg.Pool(config);
      // An idle client's error (the server restarted) must not crash the process: the next query reconnects.
      this.pool.on('error', () => undefined);
    }
    if (this.options.migrate) {
      const client = await this.pool.connect();
      // Checked out, the client has no listener of the pool's: a connection lost mid-migration fails the next query instead.
      let lost: Error | undefined;
      const onLost = (err: Error): void => void (lost = err);
      client.on('error', onLost);
      try {
        await migrateSchema(client, this.schema);
      } finally {
        client.off('error', onLost);
        client.release(lost);
      }
    } else {
      await checkSchema(this.pool, this.schema);
    }
  }

  async disconnect(): Promise<void> {
    this.closed = true;
    await this.notify.close();
    if (this.ownsPool) await this.pool?.end().catch(() => undefined);
  }

  /** The pool the store queries with (a connected store's). */
  protected db(): Queryable {
    if (this.closed || !this.pool) throw new StoreNotConnectedError('PostgresStore');
    return this.pool;
  }

  /** One function call, one round trip: `SELECT schema.fn($1, ...)`, its result (jsonb decoded by node-postgres). */
  protected async call(fn: string, args: readonly unknown[], db: Queryable = this.db()): Promise<unknown> {
    const params = args.map((_, i) => `$${i + 1}`).join(', ');
    try {
      const { rows } = await db.query(`SELECT ${this.schema}.${fn}(${params}) AS r`, [...args]);
      return rows[0]?.r;
    } catch (err) {
      throw postgresError(fn, err);
    }
  }

  /** A read through the pool, errors typed as for calls. */
  protected async read<T>(what: string, body: (db: Queryable, schema: string) => Promise<T>): Promise<T> {
    const db = this.db();
    try {
      return await body(db, this.schema);
    } catch (err) {
      throw postgresError(what, err);
    }
  }

  async ping(): Promise<number> {
    const started = Date.now();
    await this.read('ping', (db) => db.query('SELECT 1'));
    return Date.now() - started;
  }

  async reserveIds(queue: string, count: number, taken?: string): Promise<number> {
    // The counter first moves past every block drawn around a taken id (ID_BASE, RENUMBER_MARGIN: lib/engine/ids.ts).
    const floor = taken === undefined ? null : Number(taken) - 1_000_000_000 + 8192;
    return Number(await this.call('reserve_ids', [queue, count, floor]));
  }

  add(queue: string, jobs: readonly S.NewJob[]): Promise<S.AddBatchOutcome> {
    return this.addWith(queue, jobs, undefined);
  }

  /**
   * Adds with `tx`, a node-postgres client inside the caller's open
   * transaction: the rows are written in that transaction, invisible to
   * workers until it commits, gone if it rolls back; the wake-up (NOTIFY) is
   * sent on commit. The add locks no shared row, so the caller's transaction
   * holds up no other producer or worker.
   */
  addInTransaction(queue: string, jobs: readonly S.NewJob[], tx: S.TransactionClient): Promise<S.AddBatchOutcome> {
    return this.addWith(queue, jobs, tx);
  }

  /** addFlow() in the caller's transaction (see addInTransaction): the whole tree commits or rolls back with it. */
  addFlowInTransaction(nodes: readonly S.NewFlowNode[], tx: S.TransactionClient): Promise<S.AddFlowOutcome> {
    return this.addFlowWith(nodes, tx);
  }

  private async addWith(queue: string, jobs: readonly S.NewJob[], tx: Queryable | undefined): Promise<S.AddBatchOutcome> {
    const r = objectOf('add', await this.call('add', [queue, JSON.stringify(jobs.map(jobJson))], tx));
    if (r.status === 'full') return { status: 'full', limit: Number(r.limit), ...(typeof r.group === 'string' && { group: r.group }) };
    return {
      status: 'added',
      jobs: arrayOf('add', r.jobs).map((raw) => {
        const o = objectOf('add', raw);
        if (o.created === true) return { created: true, id: String(o.id), state: o.state as S.JobState, createdAt: Number(o.createdAt), runAt: Number(o.runAt) };
        const existing = o.existing && typeof o.existing === 'object' ? toJobRecord(o.existing as Record<string, unknown>) : null;
        return { created: false, id: String(o.id), existing, ...(o.taken === true && { taken: true as const }) };
      }),
    };
  }

  async claim(queue: string, fetch: S.Fetch): Promise<S.ClaimOutcome> {
    const r = objectOf('claim', await this.call('claim', [queue, ...fetchArgs(fetch)]));
    return { jobs: jobsOf('claim', r.jobs), waitMs: Number(r.waitMs) };
  }

  async complete(queue: string, lease: S.Lease, result: string, fetch: S.Fetch, durationMs?: number): Promise<S.CompleteOutcome> {
    return singleCompletion(await this.completeMany(queue, [{ lease, result, durationMs }], fetch));
  }

  async completeMany(queue: string, completions: readonly S.Completion[], fetch: S.Fetch): Promise<S.CompleteManyOutcome> {
    const items = completions.map((c) => ({ id: c.lease.id, token: c.lease.token, result: c.result, durationMs: c.durationMs }));
    const r = objectOf('complete', await this.call('complete', [queue, JSON.stringify(items), ...fetchArgs(fetch)]));
    const statuses = arrayOf('complete', r.statuses).map((raw): S.CompletionStatus => {
      const o = objectOf('complete', raw);
      if (o.status === 'already') return { status: 'already', state: o.state as S.JobState };
      return { status: o.status as 'completed' | 'cancelled' | 'lost' };
    });
    return { statuses, next: jobsOf('complete', r.jobs), waitMs: Number(r.waitMs) };
  }

  async fail(queue: string, lease: S.Lease, failure: S.Failure): Promise<S.FailOutcome> {
    const args = [queue, lease.id, lease.token, failure.retryDelay, failure.reason, failure.message, failure.stack, failure.code];
    return failOutcome(objectOf('fail', await this.call('fail', args)));
  }

  async throttle(queue: string, lease: S.Lease, retryAfter: number, wholeQueue = true): Promise<S.FailOutcome> {
    return failOutcome(objectOf('throttle', await this.call('throttle', [queue, lease.id, lease.token, retryAfter, wholeQueue])));
  }

  async extend(queue: string, lockMs: number, leases: readonly S.Lease[]): Promise<S.ExtendOutcome[]> {
    const r = await this.call('extend', [queue, lockMs, JSON.stringify(leases.map((l) => ({ id: l.id, token: l.token })))]);
    return arrayOf('extend', r) as S.ExtendOutcome[];
  }

  async release(queue: string, lease: S.Lease): Promise<S.ReleaseOutcome> {
    return (await this.call('release', [queue, lease.id, lease.token])) as S.ReleaseOutcome;
  }

  async sampleGauges(queue: string): Promise<boolean> {
    return (await this.call('sample_gauges', [queue])) === true;
  }

  async promote(queue: string, limit: number): Promise<S.PromoteOutcome> {
    const r = objectOf('promote', await this.call('promote', [queue, limit]));
    const refill = Array.isArray(r.refill) ? r.refill.map(String) : [];
    return { moved: Number(r.moved), nextDueIn: r.nextDueIn === null || r.nextDueIn === undefined ? null : Number(r.nextDueIn), ...(refill.length > 0 && { refill }) };
  }

  async reap(queue: string, maxStalled: number, limit: number): Promise<S.ReapOutcome[]> {
    return arrayOf('reap', await this.call('reap', [queue, maxStalled, limit])).map((raw) => {
      const o = objectOf('reap', raw);
      return { id: String(o.id), state: o.state as S.JobState };
    });
  }

  async cancel(queue: string, id: string): Promise<S.CancelOutcome> {
    const o = objectOf('cancel', await this.call('cancel', [queue, id]));
    const children = arrayOf('cancel', o.children).map((c) => objectOf('cancel', c)).map((c) => ({ queue: String(c.queue), id: String(c.id) }));
    if (o.status === 'finished') return { status: 'finished', state: o.state as S.JobState, children };
    return { status: o.status as 'cancelled' | 'requested' | 'unknown', children };
  }

  async progress(queue: string, lease: S.Lease, progress: string): Promise<boolean> {
    return (await this.call('set_progress', [queue, lease.id, lease.token, progress])) === true;
  }

  async updateData(queue: string, lease: S.Lease, data: string): Promise<boolean> {
    return (await this.call('update_data', [queue, lease.id, lease.token, data])) === true;
  }

  async log(queue: string, lease: S.Lease, line: string, keep: number): Promise<number | null> {
    const n = await this.call('log', [queue, lease.id, lease.token, line, keep]);
    return n === null || n === undefined ? null : Number(n);
  }

  addFlow(nodes: readonly S.NewFlowNode[]): Promise<S.AddFlowOutcome> {
    return this.addFlowWith(nodes, undefined);
  }

  private async addFlowWith(nodes: readonly S.NewFlowNode[], tx: Queryable | undefined): Promise<S.AddFlowOutcome> {
    const o = objectOf('add_flow', await this.call('add_flow', [JSON.stringify(nodes.map(flowNodeJson))], tx));
    if (o.status === 'duplicate') return { status: 'duplicate', queue: String(o.queue), id: String(o.id) };
    return { status: 'added', createdAt: Number(o.createdAt) };
  }

  openEvents(queue: string): S.EventReader {
    return new PostgresEventReader(() => this.db(), this.schema, queue);
  }

  getJob(queue: string, id: string): Promise<S.JobRecord | null> {
    return this.read('getJob', (db, s) => R.getJob(db, s, queue, id));
  }

  getCounts(queue: string): Promise<S.JobCounts> {
    return this.read('getCounts', (db, s) => R.getCounts(db, s, queue));
  }
}

function failOutcome(o: Record<string, unknown>): S.FailOutcome {
  if (o.status === 'lost') return { status: 'lost' };
  return { status: o.status as 'moved' | 'already', state: o.state as S.JobState, runAt: Number(o.runAt ?? 0) };
}

/** The LISTEN connection of a store given a pool: the pool's own connection settings. */
function poolClientConfig(pool: Pool): PoolConfig {
  const options = (pool as unknown as { options?: PoolConfig }).options ?? {};
  const { max: _max, idleTimeoutMillis: _idle, ...client } = options;
  return client;
}
