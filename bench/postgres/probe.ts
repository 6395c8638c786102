import pg from 'pg';
import type { PostgresServer as Server } from '../../test/helpers/postgres-server.mjs';
import { sleep } from '../measure.js';

/**
 * The one private PostgreSQL server of a run: test/helpers/postgres-server.mjs
 * (initdb in a temp dir, a free loopback port, never the machine's 5432,
 * stopped by its own pid). Imported at run time from the source tree, since
 * the bench runs compiled from dist-bench/. `durable`: fsync and synchronous
 * commit on, as a production server (the default of this bench).
 */
export async function startPostgres(durable: boolean): Promise<Server> {
  const helper = new URL('../../../test/helpers/postgres-server.mjs', import.meta.url).href;
  const { PostgresServer } = (await import(helper)) as typeof import('../../test/helpers/postgres-server.mjs');
  return PostgresServer.start({ durable, settings: { shared_buffers: '128MB', max_wal_size: '1GB' } });
}

/** Statements each database received from this process: every pg Client's query() counted by the database it is connected to. */
const sent = new Map<string, number>();
let counting = false;

/**
 * Counts round trips: node-postgres sends one query per Client.query() call
 * (a prepared statement's parse/bind/execute go in one write), and the three
 * libraries all use pg (Spool and pg-boss import it, BullMQ requires it: the
 * same module, so one patch of Client.prototype.query sees them all). LISTEN
 * and polling queries count too: they are round trips the library makes.
 */
export function countRoundTrips(): void {
  if (counting) return;
  counting = true;
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown; connectionParameters?: { database?: string } };
  const original = proto.query;
  proto.query = function (this: { connectionParameters?: { database?: string } }, ...args: unknown[]) {
    const db = this.connectionParameters?.database ?? '?';
    sent.set(db, (sent.get(db) ?? 0) + 1);
    return original.apply(this, args);
  };
}

export function roundTrips(database: string): number {
  return sent.get(database) ?? 0;
}

/** What the database wrote: rows inserted, updated and deleted in its user tables. */
export interface Writes {
  readonly ins: number;
  readonly upd: number;
  readonly del: number;
}

/**
 * The bench's admin connection to the `postgres` database: makes a fresh
 * database per row from a migrated template (the Postgres side of the Redis
 * bench's FLUSHALL) and reads what the row wrote. It never counts itself:
 * its statements go to `postgres` and to the row's database only between the
 * timed phases.
 */
export class PgProbe {
  private readonly admin: pg.Client;

  constructor(private readonly server: Server) {
    this.admin = new pg.Client({ connectionString: server.url('postgres') });
  }

  async open(): Promise<void> {
    await this.admin.connect();
  }

  async close(): Promise<void> {
    await this.admin.end();
  }

  /** A new, empty database `name` (dropped first if it exists), from `template` when given. */
  async freshDatabase(name: string, template?: string): Promise<string> {
    await this.waitIdle(name);
    await this.admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await this.admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    return this.server.url(name);
  }

  /** Until no session of this process is connected to `database` (a closed pool's backends exit a moment after end()). */
  async waitIdle(database: string, withinMs = 10_000): Promise<void> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      const { rows } = await this.admin.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1', [database]);
      if (Number(rows[0]!.n) === 0) return;
      if (Date.now() > deadline) throw new Error(`sessions still connected to ${database} after ${withinMs} ms: a contender did not close its pool`);
      await sleep(20);
    }
  }

  /**
   * Rows written in `database`'s user tables so far. Read once every session
   * of the contender closed: a backend flushes its table counters at exit,
   * so after waitIdle() nothing is pending.
   */
  async writes(database: string): Promise<Writes> {
    await this.waitIdle(database);
    const client = new pg.Client({ connectionString: this.server.url(database) });
    await client.connect();
    try {
      await client.query('SELECT pg_stat_clear_snapshot()');
      const { rows } = await client.query<{ ins: string; upd: string; del: string }>(
        'SELECT coalesce(sum(n_tup_ins), 0) AS ins, coalesce(sum(n_tup_upd), 0) AS upd, coalesce(sum(n_tup_del), 0) AS del FROM pg_stat_user_tables',
      );
      const row = rows[0]!;
      return { ins: Number(row.ins), upd: Number(row.upd), del: Number(row.del) };
    } finally {
      await client.end();
    }
  }

  /** `SELECT 1` round trips on a connection to `database`, each after `pauseMs` of quiet: the floor of add-to-start, ms, sorted. */
  async selectAfterPause(database: string, samples: number, pauseMs: number): Promise<number[]> {
    const client = new pg.Client({ connectionString: this.server.url(database) });
    await client.connect();
    const out: number[] = [];
    try {
      for (let i = 0; i < samples; i++) {
        await sleep(pauseMs);
        const t0 = performance.now();
        await client.query('SELECT 1');
        out.push(performance.now() - t0);
      }
    } finally {
      await client.end();
    }
    return out.sort((a, b) => a - b);
  }
}
