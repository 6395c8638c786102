import type * as S from '../store/store.js';
import type { Queryable } from './migrate.js';
import * as R from './postgres-reads.js';
import { arrayOf, childrenOf, objectOf } from './rows.js';
import { retentionOf } from './encode.js';
import { PostgresCallError } from './errors.js';

/**
 * PostgresStore's settings, reads, job changes and operations on many jobs:
 * the half of the Store contract that is not the job lifecycle (kept apart so
 * each file stays one job). Each write is one SQL function call.
 */
export abstract class PostgresStoreOps {
  protected abstract call(fn: string, args: readonly unknown[], db?: Queryable): Promise<unknown>;
  protected abstract read<T>(what: string, body: (db: Queryable, schema: string) => Promise<T>): Promise<T>;

  async pause(queue: string): Promise<boolean> {
    return (await this.call('pause', [queue])) === true;
  }

  async resume(queue: string): Promise<boolean> {
    return (await this.call('resume', [queue])) === true;
  }

  async pauseNames(queue: string, names: readonly string[]): Promise<number> {
    return Number(await this.call('pause_names', [queue, names]));
  }

  async resumeNames(queue: string, names: readonly string[]): Promise<void> {
    await this.call('resume_names', [queue, names]);
  }

  async pauseGroup(queue: string, group: string): Promise<boolean> {
    return (await this.call('pause_group', [queue, group])) === true;
  }

  async resumeGroup(queue: string, group: string): Promise<boolean> {
    return (await this.call('resume_group', [queue, group])) === true;
  }

  async setGroupLimits(queue: string, group: string, limits: S.GroupLimits): Promise<void> {
    await this.call('group_limits', [queue, group, JSON.stringify(limits)]);
  }

  async configure(queue: string, limits: S.QueueLimits): Promise<void> {
    const { events, ...rest } = limits;
    // events: false off (0), { maxLen } its length, null or true the default (null).
    const ev = events === undefined ? {} : { events: events === false ? 0 : events === null || events === true ? null : events.maxLen };
    await this.call('configure', [queue, JSON.stringify({ ...rest, ...ev })]);
  }

  isPaused(queue: string): Promise<boolean> {
    return this.read('isPaused', async (db, s) => (await R.queueRow(db, s, queue))?.paused === true);
  }

  pausedNames(queue: string): Promise<string[]> {
    return this.read('pausedNames', async (db, s) => ((await R.queueRow(db, s, queue))?.paused_names as string[] | undefined) ?? []);
  }

  getLimits(queue: string): Promise<S.QueueLimits> {
    return this.read('getLimits', (db, s) => R.getLimits(db, s, queue));
  }

  getGroup(queue: string, group: string): Promise<S.GroupState> {
    return this.read('getGroup', (db, s) => R.getGroup(db, s, queue, group));
  }

  getLogs(queue: string, id: string): Promise<string[]> {
    return this.read('getLogs', async (db, s) => {
      const { rows } = await db.query(`SELECT logs FROM ${s}.jobs WHERE queue = $1 AND id = $2`, [queue, id]);
      return (rows[0]?.logs as string[] | undefined) ?? [];
    });
  }

  getOnce(queue: string, key: string): Promise<string | null> {
    return this.read('getOnce', async (db, s) => {
      const { rows } = await db.query(`SELECT outcome FROM ${s}.once WHERE queue = $1 AND key = $2 AND expires_at > ${s}.now_ms()`, [queue, key]);
      return rows[0] ? String(rows[0].outcome) : null;
    });
  }

  setOnce(queue: string, key: string, outcome: string, ttlMs: number): Promise<void> {
    return this.read('setOnce', async (db, s) => {
      await db.query(
        `INSERT INTO ${s}.once (queue, key, outcome, expires_at) VALUES ($1, $2, $3, ${s}.now_ms() + $4)
         ON CONFLICT (queue, key) DO UPDATE SET outcome = EXCLUDED.outcome, expires_at = EXCLUDED.expires_at`,
        [queue, key, outcome, ttlMs],
      );
    });
  }

  abstract getCounts(queue: string): Promise<S.JobCounts>;

  async getMetrics(queue: string): Promise<S.MetricsRecord> {
    const counts = await this.getCounts(queue);
    return this.read('getMetrics', (db, s) => R.metrics(db, s, queue, counts));
  }

  listIds(queue: string, state: S.JobState, start: number, end: number): Promise<string[]> {
    return this.read('listIds', (db, s) => R.listIds(db, s, queue, state, start, end));
  }

  listQueues(): Promise<string[]> {
    return this.read('listQueues', async (db, s) => {
      const { rows } = await db.query(`SELECT name FROM ${s}.queues ORDER BY name`);
      return rows.map((r) => String(r.name));
    });
  }

  verify(queue: string): Promise<string[]> {
    return this.read('verify', (db, s) => R.verify(db, s, queue));
  }

  /** A flow's parts are written in one transaction and parents hear of children inside the child's: nothing is ever half done. */
  async housekeep(): Promise<number> {
    return 0;
  }

  getChildren(queue: string, id: string): Promise<S.ChildrenRecord> {
    return this.read('getChildren', async (db, s) => {
      const { rows } = await db.query(`SELECT * FROM ${s}.deps WHERE parent_queue = $1 AND parent_id = $2 ORDER BY child_queue, child_id`, [queue, id]);
      return childrenOf(rows);
    });
  }

  async redrive(queue: string, id: string): Promise<S.RedriveOutcome> {
    const o = objectOf('redrive', await this.call('redrive', [queue, id, true, 0]));
    if (o.status === 'unknown') return { status: 'unknown' };
    return { status: o.status as 'redriven' | 'not-failed', state: o.state as S.JobState };
  }

  async remove(queue: string, id: string): Promise<S.RemoveOutcome> {
    const o = objectOf('remove', await this.call('remove', [queue, id]));
    if (o.status === 'not-finished') return { status: 'not-finished', state: o.state as S.JobState };
    if (o.status === 'children-pending') return { status: 'children-pending', pending: Number(o.pending) };
    return { status: o.status as 'removed' | 'unknown' };
  }

  async watch(queue: string, id: string): Promise<S.JobState | null> {
    return ((await this.call('watch', [queue, id])) ?? null) as S.JobState | null;
  }

  page(queue: string, query: S.PageQuery): Promise<S.Page> {
    return this.read('page', (db, s) => R.page(db, s, queue, query));
  }

  async purge(queue: string, query: S.PurgeQuery): Promise<S.PurgeStep> {
    const o = objectOf('purge', await this.call('purge', [queue, query.state, query.finishedBefore ?? null, query.name ?? null, query.batch, query.budget, query.cursor]));
    return { removed: Number(o.removed), done: o.done === true, cursor: String(o.cursor ?? '') };
  }

  async redriveMany(queue: string, ids: readonly string[], options: { readonly resetAttempts: boolean; readonly delay: number }): Promise<S.RedriveManyOutcome> {
    const o = objectOf('redrive_many', await this.call('redrive_many', [queue, ids, options.resetAttempts, options.delay]));
    return { moved: Number(o.moved), withParent: arrayOf('redrive_many', o.withParent).map(String) };
  }

  async promoteJobs(queue: string, ids: readonly string[]): Promise<number> {
    return Number(await this.call('promote_jobs', [queue, ids]));
  }

  beat(queue: string, worker: S.WorkerBeat, staleMs: number): Promise<void> {
    return this.read('beat', (db, s) => R.beat(db, s, queue, worker, staleMs));
  }

  forgetWorker(queue: string, id: string): Promise<void> {
    return this.read('forgetWorker', async (db, s) => void (await db.query(`DELETE FROM ${s}.workers WHERE queue = $1 AND id = $2`, [queue, id])));
  }

  listWorkers(queue: string, staleMs: number): Promise<S.WorkerInfo[]> {
    return this.read('listWorkers', (db, s) => R.listWorkers(db, s, queue, staleMs));
  }

  getState(queue: string, id: string): Promise<S.JobState | null> {
    return this.read('getState', async (db, s) => {
      const { rows } = await db.query(`SELECT state FROM ${s}.jobs WHERE queue = $1 AND id = $2`, [queue, id]);
      return rows[0] ? (rows[0].state as S.JobState) : null;
    });
  }

  async changeJob(queue: string, id: string, change: S.JobChange): Promise<S.JobChangeOutcome> {
    const o = objectOf('change_job', await this.call('change_job', [queue, id, JSON.stringify(change)]));
    const state = o.state as S.JobState;
    if (o.status === 'unknown') return { status: 'unknown' };
    if (o.status === 'children-pending') return { status: 'children-pending', state, pending: Number(o.pending) };
    return { status: o.status as 'changed' | 'refused' | 'flow-child', state };
  }

  async drain(queue: string, query: S.DrainQuery): Promise<S.DrainStep> {
    const o = objectOf('drain', await this.call('drain', [queue, query.delayed, query.batch]));
    return { removed: Number(o.removed), done: o.done === true, cursor: '' };
  }

  /** import.lua's twin: jobs from another system with their history; an id that exists or was imported before is left. */
  async importJobs(queue: string, jobs: readonly S.ImportedJob[]): Promise<S.ImportOutcome[]> {
    for (const j of jobs) {
      // It would wait for ever: a parent whose children are all done waits for nothing (import it as waiting).
      if (j.state === 'waiting-children' && !j.children?.length) throw new PostgresCallError('import_jobs', new Error(`imported job ${j.id} enters waiting-children without children to wait for`));
    }
    const body = jobs.map((j) => ({ ...j, rc: retentionOf(j.removeOnComplete), rf: retentionOf(j.removeOnFail) }));
    return arrayOf('import_jobs', await this.call('import_jobs', [queue, JSON.stringify(body)])).map((v) => (v === 'imported' ? 'imported' : 'exists'));
  }

  async obliterate(queue: string, force: boolean): Promise<S.ObliterateOutcome> {
    const o = objectOf('obliterate', await this.call('obliterate', [queue, force]));
    return o.status === 'active' ? { status: 'active', active: Number(o.active) } : { status: 'obliterated' };
  }
}
