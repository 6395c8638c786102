import type { GroupState, JobCounts, JobRecord, JobState, MetricsRecord, Page, PageQuery, QueueLimits, WorkerBeat, WorkerInfo } from '../store/store.js';
import { byStart } from '../store/worker-registry.js';
import { minuteOfFields } from '../store/metrics-reply.js';
import type { Queryable } from './migrate.js';
import { toJobRecord } from './rows.js';

/**
 * The reads of PostgresStore: plain queries, no transition (the tables are
 * one round trip away, so reads need no function of their own). `s` is the
 * schema name, checked by the store's constructor.
 */

const SCORE: Record<JobState, string> = {
  waiting: 'ws',
  delayed: 'run_at',
  active: 'lease_until',
  completed: 'finished_at',
  failed: 'finished_at',
  cancelled: 'finished_at',
  'waiting-children': 'created_at',
};

export async function getJob(db: Queryable, s: string, queue: string, id: string): Promise<JobRecord | null> {
  const { rows } = await db.query(`SELECT to_jsonb(j) AS r FROM ${s}.jobs j WHERE queue = $1 AND id = $2`, [queue, id]);
  return rows[0] ? toJobRecord(rows[0].r as Record<string, unknown>) : null;
}

export async function getCounts(db: Queryable, s: string, queue: string): Promise<JobCounts> {
  const { rows } = await db.query(
    `SELECT
       count(*) FILTER (WHERE j.state = 'waiting') AS waiting,
       count(*) FILTER (WHERE j.state = 'waiting' AND (coalesce(q.paused, false) OR j.name = ANY (coalesce(q.paused_names, '{}'))
                                                   OR EXISTS (SELECT 1 FROM ${s}.groups g WHERE g.queue = j.queue AND g.grp = j.grp AND g.paused))) AS paused,
       count(*) FILTER (WHERE j.state = 'delayed') AS delayed,
       count(*) FILTER (WHERE j.state = 'active') AS active,
       count(*) FILTER (WHERE j.state = 'completed') AS completed,
       count(*) FILTER (WHERE j.state = 'failed') AS failed,
       count(*) FILTER (WHERE j.state = 'cancelled') AS cancelled,
       count(*) FILTER (WHERE j.state = 'waiting-children') AS wc
     FROM ${s}.jobs j LEFT JOIN ${s}.queues q ON q.name = j.queue WHERE j.queue = $1`,
    [queue],
  );
  const r = rows[0] ?? {};
  const n = (k: string) => Number(r[k] ?? 0);
  return {
    waiting: n('waiting') - n('paused'),
    paused: n('paused'),
    delayed: n('delayed'),
    active: n('active'),
    completed: n('completed'),
    failed: n('failed'),
    cancelled: n('cancelled'),
    'waiting-children': n('wc'),
  };
}

/** Ids of a state in index order; waiting: the ungrouped claimable jobs in claim order. end < 0 counts from the end (as ZRANGE). */
export async function listIds(db: Queryable, s: string, queue: string, state: JobState, start: number, end: number): Promise<string[]> {
  const extra = state === 'waiting' ? `AND grp IS NULL AND NOT (name = ANY (coalesce((SELECT paused_names FROM ${s}.queues WHERE name = $1), '{}')))` : '';
  const limit = end >= 0 ? `LIMIT ${Math.max(0, end - start + 1)}` : '';
  const { rows } = await db.query(
    `SELECT id FROM ${s}.jobs WHERE queue = $1 AND state = $2 ${extra} ORDER BY ${SCORE[state]}, id OFFSET $3 ${limit}`,
    [queue, state, Math.max(0, start)],
  );
  const ids = rows.map((r) => String(r.id));
  return end >= 0 ? ids : ids.slice(0, Math.max(0, ids.length + end + 1));
}

export async function queueRow(db: Queryable, s: string, queue: string): Promise<Record<string, unknown> | undefined> {
  const { rows } = await db.query(`SELECT * FROM ${s}.queues WHERE name = $1`, [queue]);
  return rows[0];
}

const rate = (max: unknown, duration: unknown) => (max === null || max === undefined ? null : { max: Number(max), duration: Number(duration) });
const intOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export async function getLimits(db: Queryable, s: string, queue: string): Promise<QueueLimits> {
  const q = (await queueRow(db, s, queue)) ?? {};
  const ev = intOrNull(q.ev);
  return {
    rateLimit: rate(q.rl_max, q.rl_dur),
    concurrency: intOrNull(q.gc),
    groupConcurrency: intOrNull(q.gcap),
    groupRateLimit: rate(q.grl_max, q.grl_dur),
    maxWaiting: intOrNull(q.mw),
    maxWaitingPerGroup: intOrNull(q.mwg),
    ...(ev !== null && { events: ev === 0 ? false : { maxLen: ev } }),
  };
}

export async function getGroup(db: Queryable, s: string, queue: string, group: string): Promise<GroupState> {
  const { rows } = await db.query(
    `SELECT (SELECT count(*) FROM ${s}.jobs WHERE queue = $1 AND grp = $2 AND state = 'waiting') AS waiting,
            (SELECT count(*) FROM ${s}.jobs WHERE queue = $1 AND grp = $2 AND state = 'active') AS active,
            g.paused, g.cap, g.rl_max, g.rl_dur
       FROM (SELECT 1) one LEFT JOIN ${s}.groups g ON g.queue = $1 AND g.grp = $2`,
    [queue, group],
  );
  const r = rows[0] ?? {};
  const rl = rate(r.rl_max, r.rl_dur);
  return {
    id: group,
    waiting: Number(r.waiting ?? 0),
    active: Number(r.active ?? 0),
    paused: r.paused === true,
    ...(r.cap !== null && r.cap !== undefined && { concurrency: Number(r.cap) }),
    ...(rl && { rateLimit: rl }),
  };
}

/** verify(): every job's state matches the columns its index needs; active jobs hold a lease; parents wait for a child. */
export async function verify(db: Queryable, s: string, queue: string): Promise<string[]> {
  const { rows } = await db.query(
    `SELECT id, state, token, lease_until, ws, run_at,
            (SELECT count(*) FROM ${s}.deps d WHERE d.parent_queue = j.queue AND d.parent_id = j.id AND d.status = 'pending') AS pending
       FROM ${s}.jobs j
      WHERE queue = $1 AND (
            (state = 'active' AND (token IS NULL OR lease_until IS NULL))
         OR (state = 'waiting' AND ws IS NULL)
         OR (state = 'delayed' AND run_at IS NULL)
         OR (state = 'waiting-children')
         OR state NOT IN ('waiting', 'delayed', 'active', 'completed', 'failed', 'cancelled', 'waiting-children'))`,
    [queue],
  );
  const problems: string[] = [];
  for (const r of rows) {
    const id = String(r.id);
    if (r.state === 'active' && r.token === null) problems.push(`${id}: active without a lease token`);
    else if (r.state === 'active' && r.lease_until === null) problems.push(`${id}: active without a lease expiry`);
    else if (r.state === 'waiting' && r.ws === null) problems.push(`${id}: waiting without a place`);
    else if (r.state === 'delayed' && r.run_at === null) problems.push(`${id}: delayed without a run time`);
    else if (r.state === 'waiting-children' && Number(r.pending) === 0) problems.push(`${id}: waiting-children with no pending child`);
    else if (r.state !== 'waiting-children') problems.push(`${id}: unknown state ${String(r.state)}`);
  }
  return problems;
}

export async function beat(db: Queryable, s: string, queue: string, worker: WorkerBeat, staleMs: number): Promise<void> {
  await db.query(
    `WITH now AS (SELECT ${s}.now_ms() AS t),
          gone AS (DELETE FROM ${s}.workers WHERE queue = $1 AND seen_at < (SELECT t FROM now) - $4)
     INSERT INTO ${s}.workers (queue, id, info, seen_at) SELECT $1, $2, $3::jsonb, t FROM now
     ON CONFLICT (queue, id) DO UPDATE SET info = EXCLUDED.info, seen_at = EXCLUDED.seen_at`,
    [queue, worker.id, JSON.stringify(worker), staleMs],
  );
}

export async function listWorkers(db: Queryable, s: string, queue: string, staleMs: number): Promise<WorkerInfo[]> {
  const { rows } = await db.query(`SELECT info, seen_at FROM ${s}.workers WHERE queue = $1 AND seen_at >= ${s}.now_ms() - $2`, [queue, staleMs]);
  return rows
    .map((r) => {
      const info = r.info as Record<string, unknown>;
      return {
        id: String(info.id),
        hostname: String(info.hostname),
        pid: Number(info.pid),
        concurrency: Number(info.concurrency),
        running: Number(info.running),
        startedAt: Number(info.startedAt),
        paused: info.paused === true,
        seenAt: Number(r.seen_at),
      };
    })
    .sort(byStart);
}

/** The score of a job row in its state's index (for page cursors). */
function scoreOf(state: JobState, row: Record<string, unknown>): number {
  return Number(row[SCORE[state]] ?? 0);
}

/** page.lua: one page of a state's index, or of the dead letters by name/reason, after a cursor, with filters. */
export async function page(db: Queryable, s: string, queue: string, query: PageQuery): Promise<Page> {
  const state: JobState = 'state' in query.index ? query.index.state : 'failed';
  const col = SCORE[state];
  const dir = query.order === 'asc' ? 'ASC' : 'DESC';
  const cmp = query.order === 'asc' ? '>' : '<';
  const args: unknown[] = [queue, state];
  const where: string[] = [];
  const arg = (v: unknown) => {
    args.push(v);
    return `$${args.length}`;
  };
  if (query.after) where.push(`(${col}, id) ${cmp} (${arg(query.after.score)}, ${arg(query.after.id)})`);
  if (query.min !== undefined) where.push(`${col} >= ${arg(query.min)}`);
  if (query.max !== undefined) where.push(`${col} <= ${arg(query.max)}`);
  // The dead letters by name / reason are indexes of their own on Redis (includes/dead): their members, not a filter, count against the budget.
  if ('failedBy' in query.index) {
    if (query.index.failedBy.name !== undefined) where.push(`name = ${arg(query.index.failedBy.name)}`);
    if (query.index.failedBy.reason !== undefined) where.push(`coalesce(reason, '') = ${arg(query.index.failedBy.reason)}`);
  }
  const filters: string[] = [];
  if (query.name !== undefined) filters.push(`name = ${arg(query.name)}`);
  if (query.errorContains !== undefined) filters.push(`strpos(lower(coalesce(err_message, '')), lower(${arg(query.errorContains)})) > 0`);
  const scanned = await db.query(
    `SELECT to_jsonb(j) AS r, ${filters.length > 0 ? filters.join(' AND ') : 'true'} AS hit FROM ${s}.jobs j
      WHERE queue = $1 AND state = $2 ${where.map((w) => `AND ${w}`).join(' ')}
      ORDER BY ${col} ${dir}, id ${dir} LIMIT ${arg(query.budget)}`,
    args,
  );
  const ids: string[] = [];
  const jobs: JobRecord[] = [];
  let last: Page['last'];
  for (const row of scanned.rows) {
    const r = row.r as Record<string, unknown>;
    last = { id: String(r.id), score: scoreOf(state, r) };
    if (row.hit !== true) continue;
    ids.push(String(r.id));
    if (!query.idsOnly) jobs.push(toJobRecord(r));
    if (ids.length >= query.limit) break;
  }
  const done = scanned.rows.length < query.budget && ids.length < query.limit;
  return { ids, jobs, ...(last && { last }), done };
}

/** Counts, ages, and the last 60 minutes of counters (lua/metrics.lua's reply, read from the metrics rows). */
export async function metrics(db: Queryable, s: string, queue: string, counts: JobCounts): Promise<MetricsRecord> {
  const { rows } = await db.query(
    `SELECT ${s}.now_ms() AS now,
            (SELECT min(run_at) FROM ${s}.jobs WHERE queue = $1 AND state = 'waiting') AS oldest,
            (SELECT min(run_at) FROM ${s}.jobs WHERE queue = $1 AND state = 'delayed') AS earliest`,
    [queue],
  );
  const r = rows[0] ?? {};
  const now = Number(r.now);
  const minute = Math.floor(now / 60_000);
  const counted = await db.query(`SELECT minute, field, n FROM ${s}.metrics WHERE queue = $1 AND minute > $2 AND minute <= $3`, [queue, minute - 60, minute]);
  const byMinute = new Map<number, [string, number][]>();
  for (const row of counted.rows) {
    const m = Number(row.minute);
    const list = byMinute.get(m) ?? [];
    list.push([String(row.field), Number(row.n)]);
    byMinute.set(m, list);
  }
  const minutes = Array.from({ length: 60 }, (_, k) => minute - 59 + k).map((m) => minuteOfFields(m * 60_000, byMinute.get(m) ?? []));
  return { counts, now, oldestWaitingSince: r.oldest === null ? null : Number(r.oldest), earliestDelayedAt: r.earliest === null ? null : Number(r.earliest), minutes };
}
