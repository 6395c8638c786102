import type { ChildrenRecord, JobRecord, JobState } from '../store/store.js';
import { describe } from '../common/validation.js';
import { PostgresCallError } from './errors.js';

/** A row of the jobs table as to_jsonb() returns it (column names, numbers as JSON numbers). */
export type JobRow = Readonly<Record<string, unknown>>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : typeof v === 'string' && v !== '' ? Number(v) : undefined);

/** The engine's JobRecord of a jobs row (the one place the row's columns are read). */
export function toJobRecord(row: JobRow): JobRecord {
  const deadline = num(row.deadline) ?? 0;
  const message = str(row.err_message);
  return {
    id: String(row.id),
    name: String(row.name),
    data: String(row.data),
    opts: String(row.opts),
    state: row.state as JobState,
    attempt: num(row.attempt) ?? 0,
    maxAttempts: num(row.max_attempts) ?? 1,
    createdAt: num(row.created_at) ?? 0,
    runAt: num(row.run_at),
    startedAt: num(row.started_at),
    finishedAt: num(row.finished_at),
    deadline: deadline > 0 ? deadline : undefined,
    priority: num(row.priority) ?? 0,
    lifo: row.lifo === true,
    stalled: num(row.stalled) ?? 0,
    progress: str(row.progress),
    result: str(row.result),
    error: message === undefined ? undefined : { message, stack: str(row.err_stack) ?? '', code: str(row.err_code) ?? '' },
    reason: str(row.reason),
    token: str(row.token),
    group: str(row.grp),
    cancelRequested: row.cancel === true,
    ...(typeof row.parent_id === 'string' && { parent: { queue: String(row.parent_queue), id: row.parent_id } }),
    ...(typeof row.trace === 'string' && { traceContext: row.trace }),
  };
}

/** A jsonb value a function returned, checked to be an object. */
export function objectOf(fn: string, v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new PostgresCallError(fn, new Error(`expected an object, got ${describe(v)}`));
  return v as Record<string, unknown>;
}

export function arrayOf(fn: string, v: unknown): unknown[] {
  if (!Array.isArray(v)) throw new PostgresCallError(fn, new Error(`expected an array, got ${describe(v)}`));
  return v;
}

export function jobsOf(fn: string, v: unknown): JobRecord[] {
  return arrayOf(fn, v).map((row) => toJobRecord(objectOf(fn, row)));
}

/** A parent's deps rows as the engine reads them (getChildren). */
export function childrenOf(rows: readonly Readonly<Record<string, unknown>>[]): ChildrenRecord {
  const out: { pending: ChildrenRecord['pending'][number][]; results: ChildrenRecord['results'][number][]; failures: ChildrenRecord['failures'][number][] } = {
    pending: [],
    results: [],
    failures: [],
  };
  for (const r of rows) {
    const child = { queue: String(r.child_queue), id: String(r.child_id) };
    if (r.status === 'pending') out.pending.push(child);
    else if (r.status === 'completed') out.results.push({ child, result: String(r.result ?? 'null') });
    if (r.failure && typeof r.failure === 'object') {
      const f = r.failure as Record<string, unknown>;
      out.failures.push({
        child,
        failure: {
          state: f.state === 'cancelled' ? 'cancelled' : 'failed',
          reason: String(f.reason ?? ''),
          message: String(f.message ?? ''),
          policy: (f.policy ?? 'fail') as ChildrenRecord['failures'][number]['failure']['policy'],
        },
      });
    }
  }
  return out;
}
