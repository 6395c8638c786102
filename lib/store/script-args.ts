import { encodeChildRef } from './flow-replies.js';
import { encodeRate } from './limit-replies.js';
import { DEFAULT_SPECS, type Completion, type Fetch, type GroupLimits, type Lease, type NewFlowNode, type NewJob, type QueueLimits } from './store.js';

/**
 * The ARGV of each script, built in one place in the order its header lists
 * (the descriptor in scripts.ts names them; test/unit/scripts.spec checks
 * the header). Numbers that Lua must keep exact travel as strings in JSON.
 */

/** What a claim takes, shared by claim and complete in the same order: worker id, count, lease ms, then name/room pairs. */
function fetchArgs(fetch: Fetch): (string | number)[] {
  return [fetch.workerId, fetch.count, fetch.lockMs];
}

/** Fetch.nameRoom as the name, room argument pairs claim-batch.lua reads. */
function roomArgs(fetch: Fetch, args: (string | number)[]): (string | number)[] {
  for (const [name, room] of fetch.nameRoom ?? []) args.push(name, room);
  return args;
}

export function claimArgs(fetch: Fetch): (string | number)[] {
  return roomArgs(fetch, [...fetchArgs(fetch), fetch.woken ? 1 : 0, fetch.pushSlots ?? '']);
}

/** complete: the claim's worker id, count, lease ms and push slots, the job count, four arguments per job, then name/room pairs. */
export function completeArgs(completions: readonly Completion[], fetch: Fetch): (string | number)[] {
  const args: (string | number)[] = [fetch.workerId, fetch.count, fetch.lockMs, fetch.pushSlots ?? '', completions.length];
  for (const c of completions) args.push(c.lease.id, c.lease.token, c.result, c.durationMs ?? '');
  return roomArgs(fetch, args);
}

/** add: the job count, then five arguments per job. */
export function addArgs(jobs: readonly NewJob[]): (string | number)[] {
  const args: (string | number)[] = [jobs.length];
  // NOTE: the jobs of one call mostly share their options (a producer's attempts and
  // retention): such a job reuses the previous one's packed string, no JSON.stringify.
  let prev: NewJob | undefined;
  let prevPacked = '';
  for (const job of jobs) {
    const same =
      prev !== undefined && retentionOnly(job) && job.maxAttempts === prev.maxAttempts && job.removeOnComplete === prev.removeOnComplete &&
      job.removeOnFail === prev.removeOnFail && job.reportTaken === prev.reportTaken;
    const packed = same ? prevPacked : packAddOptions(job);
    if (!same && retentionOnly(job)) {
      prev = job;
      prevPacked = packed;
    }
    args.push(job.id, job.name, job.data, job.opts, packed);
  }
  return args;
}

/** Every option packAddOptions packs is at its default, except attempts, retention and reportTaken. */
function retentionOnly(job: NewJob): boolean {
  return job.delay === 0 && job.priority === 0 && !job.lifo && job.deadline === 0 && !job.dedup && !job.group && job.traceContext === undefined;
}

/** extend: the lease duration, then id, token pairs. */
export function extendArgs(lockMs: number, leases: readonly Lease[]): (string | number)[] {
  const args: (string | number)[] = [lockMs];
  for (const lease of leases) args.push(lease.id, lease.token);
  return args;
}

/** group-limits: '=' leaves a limit as it is, '-' falls back to the queue default. */
export function groupLimitArgs(group: string, limits: GroupLimits): string[] {
  const cap = limits.concurrency === undefined ? '=' : limits.concurrency === null ? '-' : String(limits.concurrency);
  const rate = limits.rateLimit === undefined ? '=' : limits.rateLimit === null ? '-' : encodeRate(limits.rateLimit);
  return [group, cap, rate];
}

/** configure: field, value pairs for the limits given ('' removes one). */
export function configureArgs(limits: QueueLimits): string[] {
  const pairs: string[] = [];
  const set = (field: string, value: string | undefined) => value !== undefined && pairs.push(field, value);
  set('rl', limits.rateLimit === undefined ? undefined : limits.rateLimit === null ? '' : encodeRate(limits.rateLimit));
  set('gc', limits.concurrency === undefined ? undefined : String(limits.concurrency ?? ''));
  set('gcap', limits.groupConcurrency === undefined ? undefined : String(limits.groupConcurrency ?? ''));
  set('grl', limits.groupRateLimit === undefined ? undefined : limits.groupRateLimit === null ? '' : encodeRate(limits.groupRateLimit));
  set('mw', limits.maxWaiting === undefined ? undefined : String(limits.maxWaiting ?? ''));
  set('mwg', limits.maxWaitingPerGroup === undefined ? undefined : String(limits.maxWaitingPerGroup ?? ''));
  // ev: the event stream's approximate MAXLEN, '0' off, absent the default (lua/includes/events).
  set('ev', limits.events === undefined ? undefined : limits.events === null || limits.events === true ? '' : limits.events === false ? '0' : String(limits.events.maxLen));
  return pairs;
}

/**
 * The options of a new job that differ from their defaults, as add.lua reads
 * them (one JSON argument, '' when all are defaults; values as strings so
 * Lua's cjson keeps them exact). A plain add thus costs 5 arguments, not 13.
 */
export function packAddOptions(job: NewJob): string {
  const x: Record<string, string> = {};
  let differs = false;
  const put = (key: string, value: string) => {
    x[key] = value;
    differs = true;
  };
  if (job.delay !== 0) put('d', String(job.delay));
  if (job.priority !== 0) put('p', String(job.priority));
  if (job.lifo) put('l', '1');
  if (job.maxAttempts !== 1) put('a', String(job.maxAttempts));
  if (job.deadline !== 0) put('dl', String(job.deadline));
  if (job.dedup) {
    put('t', String(job.dedup.ttl));
    put('k', job.dedup.key);
  }
  // The default retention is what a job without rc/rf gets (lua/includes/retention); KEEP_ALL is sent.
  if (job.removeOnComplete !== DEFAULT_SPECS.completed) put('rc', job.removeOnComplete);
  if (job.removeOnFail !== DEFAULT_SPECS.failed) put('rf', job.removeOnFail);
  if (job.group !== undefined && job.group !== '') put('g', job.group);
  if (job.traceContext !== undefined) put('tc', job.traceContext);
  if (job.reportTaken) put('nr', '1');
  return differs ? JSON.stringify(x) : '';
}

/** A flow node as flow-add reads it (numbers as strings, so Lua's cjson keeps them exact). */
export function encodeNode(node: NewFlowNode): Record<string, unknown> {
  const { job, parent } = node;
  return {
    id: job.id,
    name: job.name,
    data: job.data,
    opts: job.opts,
    delay: String(job.delay),
    priority: String(job.priority),
    lifo: job.lifo ? '1' : '0',
    maxAttempts: String(job.maxAttempts),
    deadline: String(job.deadline),
    rc: job.removeOnComplete,
    rf: job.removeOnFail,
    group: job.group ?? '',
    tc: job.traceContext ?? '',
    pq: parent?.queue ?? '',
    pid: parent?.id ?? '',
    pol: parent?.policy ?? '',
    deps: node.children.map(encodeChildRef),
  };
}
