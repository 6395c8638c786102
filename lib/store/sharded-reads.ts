import type {
  AddFlowOutcome, CancelOutcome, ChildrenRecord, GroupLimits, GroupState, JobCounts, JobRecord, JobState, NewFlowNode, PromoteOutcome, QueueLimits,
  ReapOutcome, RedriveOutcome, RemoveOutcome,
} from './store.js';
import type { EventReader, MetricsRecord, Page, PageQuery, PurgeQuery, PurgeStep, RedriveManyOutcome } from './operations.js';
import { shardIndex } from './shard-route.js';
import { joinLimits, mergeMetrics, readShardCursor, shardCursor, splitLimits, sumCounts } from './sharded-merge.js';
import { ShardedEventReader, lazyReader } from './sharded-events.js';
import { ShardedBase, ShardedFlowError } from './sharded-base.js';

/** A sharded queue's reads and operations on many jobs: merged over the shards, or sent to the shard that holds the job (sharded-store.ts). */
export abstract class ShardedReads extends ShardedBase {
  async promote(queue: string, limit: number): Promise<PromoteOutcome> {
    if (queue !== this.queue) return this.base.promote(queue, limit);
    const all = await this.each((name) => this.base.promote(name, limit));
    const due = all.map((o) => o.nextDueIn).filter((d): d is number => d !== null);
    return { moved: all.reduce((n, o) => n + o.moved, 0), nextDueIn: due.length ? Math.min(...due) : null, refill: all.flatMap((o) => o.refill ?? []) };
  }

  async reap(queue: string, maxStalled: number, limit: number): Promise<ReapOutcome[]> {
    if (queue !== this.queue) return this.base.reap(queue, maxStalled, limit);
    return (await this.each((name) => this.base.reap(name, maxStalled, limit))).flat();
  }

  async housekeep(queue: string, limit: number): Promise<number> {
    if (queue !== this.queue) return this.base.housekeep(queue, limit);
    return Math.max(...(await this.each((name) => this.base.housekeep(name, limit))));
  }

  cancel(queue: string, id: string): Promise<CancelOutcome> {
    if (queue !== this.queue) return this.base.cancel(queue, id);
    return this.byId(id, (name) => this.base.cancel(name, id), (o) => o.status !== 'unknown');
  }

  async pause(queue: string): Promise<boolean> {
    if (queue !== this.queue) return this.base.pause(queue);
    return (await this.each((name) => this.base.pause(name))).some(Boolean);
  }

  async resume(queue: string): Promise<boolean> {
    if (queue !== this.queue) return this.base.resume(queue);
    return (await this.each((name) => this.base.resume(name))).some(Boolean);
  }

  async pauseNames(queue: string, names: readonly string[]): Promise<number> {
    if (queue !== this.queue) return this.base.pauseNames(queue, names);
    return Math.max(...(await this.each((name) => this.base.pauseNames(name, names))));
  }

  async resumeNames(queue: string, names: readonly string[]): Promise<void> {
    if (queue !== this.queue) return this.base.resumeNames(queue, names);
    await this.each((name) => this.base.resumeNames(name, names));
  }

  protected async groupShard(group: string): Promise<string> {
    return this.at(shardIndex(`g:${group}`, this.count));
  }

  async pauseGroup(queue: string, group: string): Promise<boolean> {
    return this.base.pauseGroup(queue === this.queue ? await this.groupShard(group) : queue, group);
  }

  async resumeGroup(queue: string, group: string): Promise<boolean> {
    return this.base.resumeGroup(queue === this.queue ? await this.groupShard(group) : queue, group);
  }

  async setGroupLimits(queue: string, group: string, limits: GroupLimits): Promise<void> {
    return this.base.setGroupLimits(queue === this.queue ? await this.groupShard(group) : queue, group, limits);
  }

  async getGroup(queue: string, group: string): Promise<GroupState> {
    return this.base.getGroup(queue === this.queue ? await this.groupShard(group) : queue, group);
  }

  async configure(queue: string, limits: QueueLimits): Promise<void> {
    if (queue !== this.queue) return this.base.configure(queue, limits);
    await this.each((name) => this.base.configure(name, splitLimits(limits, this.count)));
  }

  async getLimits(queue: string): Promise<QueueLimits> {
    if (queue !== this.queue) return this.base.getLimits(queue);
    return joinLimits(await this.base.getLimits(await this.at(0)), this.count);
  }

  async isPaused(queue: string): Promise<boolean> {
    return this.base.isPaused(queue === this.queue ? await this.at(0) : queue);
  }

  async pausedNames(queue: string): Promise<string[]> {
    return this.base.pausedNames(queue === this.queue ? await this.at(0) : queue);
  }

  getJob(queue: string, id: string): Promise<JobRecord | null> {
    if (queue !== this.queue) return this.base.getJob(queue, id);
    return this.byId(id, (name) => this.base.getJob(name, id), (r) => r !== null);
  }

  async getLogs(queue: string, id: string): Promise<string[]> {
    if (queue !== this.queue) return this.base.getLogs(queue, id);
    const shard = this.byId(id, async (name) => ((await this.base.getJob(name, id)) ? name : null), (n) => n !== null);
    return this.base.getLogs((await shard) ?? queue, id);
  }

  async getOnce(queue: string, key: string): Promise<string | null> {
    return this.base.getOnce(queue === this.queue ? await this.at(shardIndex(`o:${key}`, this.count)) : queue, key);
  }

  async setOnce(queue: string, key: string, outcome: string, ttlMs: number): Promise<void> {
    return this.base.setOnce(queue === this.queue ? await this.at(shardIndex(`o:${key}`, this.count)) : queue, key, outcome, ttlMs);
  }

  async getCounts(queue: string): Promise<JobCounts> {
    if (queue !== this.queue) return this.base.getCounts(queue);
    return sumCounts(await this.each((name) => this.base.getCounts(name)));
  }

  async sampleGauges(queue: string): Promise<boolean> {
    if (queue !== this.queue) return this.base.sampleGauges(queue);
    return (await this.each((name) => this.base.sampleGauges(name))).some(Boolean);
  }

  async getMetrics(queue: string): Promise<MetricsRecord> {
    if (queue !== this.queue) return this.base.getMetrics(queue);
    return mergeMetrics(await this.each((name) => this.base.getMetrics(name)));
  }

  /** Shard after shard (positions count over the shards in order), each shard's ids oldest first. */
  async listIds(queue: string, state: JobState, start: number, end: number): Promise<string[]> {
    if (queue !== this.queue) return this.base.listIds(queue, state, start, end);
    const ids: string[] = [];
    for (const name of await this.shards()) {
      ids.push(...(await this.base.listIds(name, state, 0, end < 0 ? end : Math.max(end, 0))));
      if (end >= 0 && ids.length > end) break;
    }
    return ids.slice(start, end < 0 ? ids.length + end + 1 : end + 1);
  }

  async listQueues(): Promise<string[]> {
    const names = await this.shards();
    const all = (await this.base.listQueues()).map((q) => (names.includes(q) ? this.queue : q));
    return [...new Set(all)].sort();
  }

  async verify(queue: string): Promise<string[]> {
    if (queue !== this.queue) return this.base.verify(queue);
    const found = (await this.each(async (name) => (await this.base.verify(name)).map((p) => `shard ${name}: ${p}`))).flat();
    const stray = await this.base.getCounts(queue);
    const strays = Object.values(stray).reduce((n, c) => n + c, 0);
    if (strays > 0) found.push(`${strays} jobs in the unsharded queue "${queue}": a Queue without shards: ${this.count} added them, no worker of the shards runs them`);
    return found;
  }

  addFlow(nodes: readonly NewFlowNode[]): Promise<AddFlowOutcome> {
    if (nodes.some((node) => node.queue === this.queue)) return Promise.reject(new ShardedFlowError(this.queue));
    return this.base.addFlow(nodes);
  }

  async getChildren(queue: string, id: string): Promise<ChildrenRecord> {
    if (queue !== this.queue) return this.base.getChildren(queue, id);
    return this.byId(id, (name) => this.base.getChildren(name, id), (c) => c.pending.length + c.results.length + c.failures.length > 0);
  }

  redrive(queue: string, id: string): Promise<RedriveOutcome> {
    if (queue !== this.queue) return this.base.redrive(queue, id);
    return this.byId(id, (name) => this.base.redrive(name, id), (o) => o.status !== 'unknown');
  }

  remove(queue: string, id: string): Promise<RemoveOutcome> {
    if (queue !== this.queue) return this.base.remove(queue, id);
    return this.byId(id, (name) => this.base.remove(name, id), (o) => o.status !== 'unknown');
  }

  watch(queue: string, id: string): Promise<JobState | null> {
    if (queue !== this.queue) return this.base.watch(queue, id);
    return this.byId(id, (name) => this.base.watch(name, id), (s) => s !== null);
  }

  /** Shard after shard; `last.id` carries the shard being read (cursors stay opaque to callers). */
  async page(queue: string, query: PageQuery): Promise<Page> {
    if (queue !== this.queue) return this.base.page(queue, query);
    const names = await this.shards();
    const from = readShardCursor(query.after?.id);
    const after = from.inner === '' ? undefined : { id: from.inner, score: query.after!.score };
    const { after: _ignored, ...rest } = query;
    const page = await this.base.page(names[from.shard]!, { ...rest, ...(after && { after }) });
    if (!page.done) return { ...page, ...(page.last && { last: { id: shardCursor(from.shard, page.last.id), score: page.last.score } }) };
    const next = from.shard + 1;
    return next >= names.length ? page : { ...page, done: false, last: { id: shardCursor(next, ''), score: 0 } };
  }

  async purge(queue: string, query: PurgeQuery): Promise<PurgeStep> {
    if (queue !== this.queue) return this.base.purge(queue, query);
    const names = await this.shards();
    const from = readShardCursor(query.cursor);
    const step = await this.base.purge(names[from.shard]!, { ...query, cursor: from.inner });
    if (!step.done) return { ...step, cursor: shardCursor(from.shard, step.cursor) };
    const next = from.shard + 1;
    return next >= names.length ? step : { removed: step.removed, done: false, cursor: shardCursor(next, '') };
  }

  /** Every shard gets every id: each moves the failed jobs it holds and skips the rest. */
  async redriveMany(queue: string, ids: readonly string[], options: { readonly resetAttempts: boolean; readonly delay: number }): Promise<RedriveManyOutcome> {
    if (queue !== this.queue) return this.base.redriveMany(queue, ids, options);
    const all = await this.each((name) => this.base.redriveMany(name, ids, options));
    return { moved: all.reduce((n, o) => n + o.moved, 0), withParent: all.flatMap((o) => o.withParent) };
  }

  async promoteJobs(queue: string, ids: readonly string[]): Promise<number> {
    if (queue !== this.queue) return this.base.promoteJobs(queue, ids);
    return (await this.each((name) => this.base.promoteJobs(name, ids))).reduce((n, m) => n + m, 0);
  }

  openEvents(queue: string): EventReader {
    if (queue !== this.queue) return this.base.openEvents(queue);
    return lazyReader(async () => {
      const names = await this.shards();
      return new ShardedEventReader(names.map((n) => this.base.openEvents(n)), names.map((n) => this.base.openEvents(n)));
    });
  }
}
