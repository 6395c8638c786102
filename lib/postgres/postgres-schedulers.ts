import type { SchedulerRecord, SchedulerStore, SchedulerWrite } from '../store/scheduler-store.js';
import { jobJson } from './encode.js';
import type { Queryable } from './migrate.js';
import { objectOf } from './rows.js';

type Call = (fn: string, args: readonly unknown[]) => Promise<unknown>;
type Read = <T>(what: string, body: (db: Queryable, schema: string) => Promise<T>) => Promise<T>;

/** A schedulers row as the engine reads it. */
function recordOf(r: Record<string, unknown>): SchedulerRecord {
  return {
    id: String(r.id),
    spec: String(r.spec),
    next: r.next === null || r.next === undefined ? null : Number(r.next),
    times: ((r.times as (string | number)[] | null) ?? []).map(Number),
    count: Number(r.count),
    skipped: Number(r.skipped),
    ...(typeof r.last === 'string' && { lastJobId: r.last }),
    ...(r.paused === true && { paused: true }),
    ...(r.last_at !== null && r.last_at !== undefined && { lastTickAt: Number(r.last_at) }),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** PostgresStore's schedulers: each call one SQL function (sql/functions/11-schedulers.sql), promote() advances due ones. */
export class PostgresSchedulers implements SchedulerStore {
  constructor(
    private readonly call: Call,
    private readonly read: Read,
  ) {}

  async upsert(queue: string, s: SchedulerWrite): Promise<{ readonly changed: boolean; readonly next: number | null }> {
    const body = { id: s.id, spec: s.spec, kind: s.kind, every: s.every, anchor: s.anchor, endAt: s.endAt, limit: s.limit, missed: s.missed, job: jobJson(s.job), times: s.times };
    const o = objectOf('scheduler_upsert', await this.call('scheduler_upsert', [queue, JSON.stringify(body)]));
    return { changed: o.changed === true, next: o.next === null || o.next === undefined ? null : Number(o.next) };
  }

  async refill(queue: string, id: string, spec: string, times: readonly number[]): Promise<number> {
    return Number(await this.call('scheduler_refill', [queue, id, spec, times]));
  }

  async remove(queue: string, id: string): Promise<boolean> {
    return (await this.call('scheduler_remove', [queue, id])) === true;
  }

  async pause(queue: string, id: string): Promise<'paused' | 'already' | 'unknown'> {
    const out = await this.call('scheduler_pause', [queue, id]);
    return out === 'paused' || out === 'already' ? out : 'unknown';
  }

  async resume(queue: string, id: string): Promise<{ readonly outcome: 'resumed' | 'running' | 'unknown'; readonly next: number | null }> {
    const o = objectOf('scheduler_resume', await this.call('scheduler_resume', [queue, id]));
    const outcome = o.outcome === 'resumed' || o.outcome === 'running' ? o.outcome : 'unknown';
    return { outcome, next: o.next === null || o.next === undefined ? null : Number(o.next) };
  }

  get(queue: string, id: string): Promise<SchedulerRecord | null> {
    return this.read('getScheduler', async (db, s) => {
      const { rows } = await db.query(`SELECT * FROM ${s}.schedulers WHERE queue = $1 AND id = $2`, [queue, id]);
      return rows[0] ? recordOf(rows[0]) : null;
    });
  }

  list(queue: string): Promise<SchedulerRecord[]> {
    return this.read('getSchedulers', async (db, s) => {
      const { rows } = await db.query(`SELECT * FROM ${s}.schedulers WHERE queue = $1 ORDER BY id`, [queue]);
      return rows.map(recordOf);
    });
  }
}
