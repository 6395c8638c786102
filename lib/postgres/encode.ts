import { parseRetention } from '../store/add-records.js';
import type { Fetch, NewFlowNode, NewJob } from '../store/store.js';

/** A retention spec "count,ageMs" as [count, age], the pair the SQL reads (-1: unbounded). */
export function retentionOf(spec: string | undefined): [number, number] {
  const { count, age } = parseRetention(spec);
  return [count, age];
}

/** A job as the SQL add() and add_flow() read it (sql/functions/02-add.sql's header). */
export function jobJson(job: NewJob): Record<string, unknown> {
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    delay: job.delay,
    priority: job.priority,
    lifo: job.lifo,
    maxAttempts: job.maxAttempts,
    deadline: job.deadline,
    ...(job.dedup && { dedup: job.dedup }),
    rc: retentionOf(job.removeOnComplete),
    rf: retentionOf(job.removeOnFail),
    ...(job.group !== undefined && job.group !== '' && { group: job.group }),
    ...(job.traceContext !== undefined && { trace: job.traceContext }),
    ...(job.reportTaken && { reportTaken: true }),
  };
}

export function flowNodeJson(node: NewFlowNode): Record<string, unknown> {
  return {
    queue: node.queue,
    job: jobJson(node.job),
    ...(node.parent && { parent: node.parent }),
    children: node.children,
  };
}

/** A fetch's claim arguments: count, worker id, lease ms, room per capped name. */
export function fetchArgs(fetch: Fetch): [number, string, number, string] {
  return [fetch.count, fetch.workerId, fetch.lockMs, JSON.stringify(Object.fromEntries(fetch.nameRoom ?? []))];
}
