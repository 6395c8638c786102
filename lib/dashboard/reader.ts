import { NotFoundException } from '@nestjs/common';
import type { Job } from '../engine/job.js';
import type { Queue } from '../engine/queue.js';
import type { SpoolConnections } from '../nest/connections.js';
import type { QueueRegistry } from '../nest/queue-registry.js';
import { JOB_STATES, type JobState } from '../store/store.js';
import { query } from './views/escape.js';
import type { FlowNode, JobPageModel } from './views/job.js';
import { jobHref, queueHref } from './views/layout.js';
import type { OverviewRow } from './views/overview.js';
import type { QueueFilter, QueuePageModel } from './views/queue.js';

export const PAGE_SIZE = 25;
/** Jobs a filter is counted up to on a queue page. */
const MATCH_CAP = 10_000;
/** Children shown per flow level, and levels below the root. */
const TREE_WIDTH = 50;
const TREE_DEPTH = 4;

export interface QueueQuery {
  readonly state?: string;
  readonly name?: string;
  readonly error?: string;
  readonly cursor?: string;
  readonly offset?: string;
  /** 'asc' or 'desc' along the state's index (the time column); anything else: the state's default order. */
  readonly sort?: string;
}

/** The order a state's page is shown in by default: finished states newest first, the others in index order. */
export function defaultOrder(state: JobState): 'asc' | 'desc' {
  return state === 'completed' || state === 'failed' || state === 'cancelled' ? 'desc' : 'asc';
}

/** Reads what the pages show, through the engine's Queue API only (no Redis call of its own). */
export class DashboardReader {
  constructor(
    private readonly registry: QueueRegistry,
    private readonly connections: SpoolConnections,
    private readonly scope: readonly string[] | undefined,
    private readonly base: string,
  ) {}

  connectionNames(): string[] {
    return this.scope ? [...this.scope] : this.connections.names;
  }

  /** The registered queue, or 404. */
  queue(connection: string, name: string): Queue {
    const queue = this.connectionNames().includes(connection) ? this.registry.queues(connection).find((q) => q.name === name) : undefined;
    if (!queue) throw new NotFoundException(`no queue "${name}" on connection "${connection}" in this app`);
    return queue;
  }

  /** Every queue this dashboard shows, sorted, with its page's link: from the registry, no Redis command. */
  queueLinks(): { label: string; href: string; connection: string; queue: string }[] {
    const many = this.connectionNames().length > 1;
    const pairs = this.connectionNames().flatMap((c) => this.registry.queues(c).map((q) => [c, q.name] as const));
    pairs.sort((a, b) => a[1].localeCompare(b[1]) || a[0].localeCompare(b[0]));
    return pairs.map(([connection, queue]) => ({ connection, queue, label: many ? `${queue} (${connection})` : queue, href: queueHref(this.base, connection, queue) }));
  }

  async overview(): Promise<OverviewRow[]> {
    const pairs = this.connectionNames().flatMap((c) => this.registry.queues(c).map((q) => [c, q] as const));
    pairs.sort((a, b) => a[1].name.localeCompare(b[1].name) || a[0].localeCompare(b[0]));
    return Promise.all(
      pairs.map(async ([connection, q]) => {
        const [metrics, paused, pausedNames, workers] = await Promise.all([q.getMetrics(), q.isPaused(), q.pausedNames(), q.getWorkers()]);
        return {
          connection,
          queue: q.name,
          counts: metrics.counts,
          paused,
          pausedNames,
          workers: {
            count: workers.length,
            held: workers.reduce((sum, w) => sum + w.running, 0),
            slots: workers.reduce((sum, w) => sum + w.concurrency, 0),
            hosts: [...new Set(workers.map((w) => w.hostname))],
          },
          oldestWaitingMs: metrics.oldestWaitingMs,
          minutes: metrics.minutes.map((m) => ({ at: m.at, completed: m.completed, failed: m.failed })),
        };
      }),
    );
  }

  async queuePage(connection: string, name: string, q: QueueQuery, readOnly: boolean, notice?: string): Promise<QueuePageModel> {
    const queue = this.queue(connection, name);
    const [counts, paused, pausedNames] = await Promise.all([queue.getCounts(), queue.isPaused(), queue.pausedNames()]);
    const state: JobState = JOB_STATES.includes(q.state as JobState) ? (q.state as JobState) : counts.failed > 0 ? 'failed' : 'waiting';
    const filter: QueueFilter = { ...(q.name && { name: q.name }), ...(q.error && state === 'failed' && { error: q.error }) };
    const engineFilter = { ...(filter.name && { name: filter.name }), ...(filter.error && { errorContains: filter.error }) };
    const href = (extra: Record<string, string | number | undefined>): string =>
      queueHref(this.base, connection, name, query({ state, name: filter.name, error: filter.error, ...extra }));
    // A filter is counted by scanning: up to MATCH_CAP, shown as "10,000+" past it, so a page over a big state stays a few bounded scans.
    const filtered = Object.keys(engineFilter).length > 0;
    // Sorting walks the state's index from either end (the same range reads, so the same commands); a filtered
    // page follows the engine's scan, which goes one way only (dead letters newest first, the others oldest first).
    const order = !filtered && (q.sort === 'asc' || q.sort === 'desc') ? q.sort : defaultOrder(state);
    const sorted = (extra: Record<string, string | number | undefined>): string => href({ ...(order !== defaultOrder(state) && { sort: order }), ...extra });
    const matching = await queue.countJobs(state, engineFilter, filtered ? MATCH_CAP : undefined);
    const sortLinks = filtered ? undefined : { asc: href({ sort: defaultOrder(state) === 'asc' ? undefined : 'asc' }), desc: href({ sort: defaultOrder(state) === 'desc' ? undefined : 'desc' }) };
    const common = { base: this.base, connection, queue: name, queues: this.queueLinks(), counts, paused, pausedNames, state, filter, order, ...(sortLinks && { sortLinks }), matching, matchingCapped: filtered && matching >= MATCH_CAP, readOnly, now: Date.now(), notice };
    if (state === 'failed' && (filtered || order === 'desc')) {
      // Dead letters: newest first, cursor paging (the engine's indexes and bounded text scan).
      const page = await queue.getFailed({ ...engineFilter, limit: PAGE_SIZE, ...(q.cursor && { cursor: q.cursor }) });
      const from = Math.max(0, Number(q.offset) || 0);
      return { ...common, jobs: page.jobs, from: from + 1, ...(q.cursor && { prev: href({}) }), ...(page.cursor && { next: href({ cursor: page.cursor, offset: from + page.jobs.length }) }) };
    }
    const offset = Math.max(0, Math.floor(Number(q.offset) || 0));
    const jobs = filter.name ? await this.named(queue, state, filter.name, offset) : await this.positional(queue, state, offset, counts[state], order);
    const more = jobs.length > PAGE_SIZE;
    return {
      ...common,
      jobs: jobs.slice(0, PAGE_SIZE),
      from: offset + 1,
      ...(offset > 0 && { prev: sorted({ offset: Math.max(0, offset - PAGE_SIZE) || undefined }) }),
      ...(more && { next: sorted({ offset: offset + PAGE_SIZE }) }),
    };
  }

  /** A page (plus one, to know there is a next) by position along the state's index, from its start (asc) or its end (desc). */
  private async positional(queue: Queue, state: JobState, offset: number, total: number, order: 'asc' | 'desc'): Promise<Job[]> {
    if (offset >= total) return [];
    if (order === 'desc') {
      // Positions from the count (getJobs takes no negative start): the last job of the index is at total - 1.
      const end = total - offset - 1;
      const jobs = await queue.getJobs(state, Math.max(0, end - PAGE_SIZE), end);
      return jobs.reverse();
    }
    return queue.getJobs(state, offset, offset + PAGE_SIZE);
  }

  /** Jobs of a name in a state, oldest first, skipping `offset` matches (the engine scans in bounded pages). */
  private async named(queue: Queue, state: JobState, name: string, offset: number): Promise<Job[]> {
    const out: Job[] = [];
    let seen = 0;
    for await (const job of queue.exportJobs(state, { name })) {
      if (seen++ < offset) continue;
      out.push(job);
      if (out.length > PAGE_SIZE) break;
    }
    return out;
  }

  async jobPage(connection: string, name: string, id: string, readOnly: boolean): Promise<JobPageModel> {
    const queue = this.queue(connection, name);
    const job = await queue.getJob(id);
    if (!job) throw new NotFoundException(`no job "${id}" in queue "${name}" (removed, or never added)`);
    const logs = await queue.getLogs(id);
    const tree = await this.flowTree(connection, job);
    const parentHref = job.parent && this.find(connection, job.parent.queue) ? jobHref(this.base, connection, job.parent.queue, job.parent.id) : undefined;
    return { base: this.base, connection, queue: name, job, logs, tree, readOnly, now: Date.now(), ...(parentHref && { parentHref }) };
  }

  private find(connection: string, name: string): Queue | undefined {
    return this.registry.queues(connection).find((q) => q.name === name);
  }

  /** The job's flow from its root (parents followed up to TREE_DEPTH levels), or null when it is in no flow. */
  private async flowTree(connection: string, job: Job): Promise<FlowNode | null> {
    let root: { queue: string; id: string } = { queue: job.queueName, id: job.id };
    let rootJob: Job | null = job;
    for (let up = 0; up < TREE_DEPTH && rootJob?.parent; up++) {
      const parent: { queue: string; id: string } = rootJob.parent;
      const q = this.find(connection, parent.queue);
      root = parent;
      rootJob = q ? await q.getJob(parent.id) : null;
    }
    const node = await this.node(connection, root, rootJob, job, 0);
    return node.children.length || node.more || job.parent ? node : null;
  }

  private async node(connection: string, ref: { queue: string; id: string }, j: Job | null, current: Job, depth: number): Promise<FlowNode> {
    const q = this.find(connection, ref.queue);
    const children: FlowNode[] = [];
    let more = 0;
    if (j && depth < TREE_DEPTH) {
      const [pending, results, failures] = await Promise.all([j.getPendingChildren(), j.getChildrenResults(), j.getChildrenFailures()]);
      // A dead child that failed its parent stays pending and is listed in the failures too: show each child once (its state comes from the job).
      const byKey = new Map<string, { queue: string; id: string }>();
      for (const ref of [...pending, ...[...Object.keys(results), ...Object.keys(failures)].map(splitRef)]) byKey.set(`${ref.queue}:${ref.id}`, ref);
      const refs = [...byKey.values()];
      more = Math.max(0, refs.length - TREE_WIDTH);
      for (const child of refs.slice(0, TREE_WIDTH)) {
        const cq = this.find(connection, child.queue);
        children.push(await this.node(connection, child, cq ? await cq.getJob(child.id) : null, current, depth + 1));
      }
    }
    return {
      queue: ref.queue,
      id: ref.id,
      ...(j && { name: j.name, state: j.state }),
      ...(q && { href: jobHref(this.base, connection, ref.queue, ref.id) }),
      current: ref.queue === current.queueName && ref.id === current.id,
      children,
      more,
    };
  }
}

/** '<queue>:<id>' keys of getChildrenResults/Failures; queue names hold no ':' at the front, ids may. */
function splitRef(key: string): { queue: string; id: string } {
  const at = key.indexOf(':');
  return { queue: key.slice(0, at), id: key.slice(at + 1) };
}
