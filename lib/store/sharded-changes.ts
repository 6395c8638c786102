import type { DrainQuery, DrainStep, JobChange, JobChangeOutcome, ObliterateOutcome } from './job-changes.js';
import type { JobState } from './store.js';
import { readShardCursor, shardCursor } from './sharded-merge.js';
import { ShardedReads } from './sharded-reads.js';

/** A sharded queue's Job handle changes (to the shard that holds the job) and housekeeping (every shard). */
export abstract class ShardedChanges extends ShardedReads {
  getState(queue: string, id: string): Promise<JobState | null> {
    if (queue !== this.queue) return this.base.getState(queue, id);
    return this.byId(id, (name) => this.base.getState(name, id), (s) => s !== null);
  }

  changeJob(queue: string, id: string, change: JobChange): Promise<JobChangeOutcome> {
    if (queue !== this.queue) return this.base.changeJob(queue, id, change);
    return this.byId(id, (name) => this.base.changeJob(name, id, change), (o) => o.status !== 'unknown');
  }

  /** Shard after shard, as purge: the cursor carries the shard being drained. */
  async drain(queue: string, query: DrainQuery): Promise<DrainStep> {
    if (queue !== this.queue) return this.base.drain(queue, query);
    const names = await this.shards();
    const from = readShardCursor(query.cursor);
    const step = await this.base.drain(names[from.shard]!, { ...query, cursor: from.inner });
    if (!step.done) return { ...step, cursor: shardCursor(from.shard, step.cursor) };
    const next = from.shard + 1;
    return next >= names.length ? step : { removed: step.removed, done: false, cursor: shardCursor(next, '') };
  }

  /** Every shard, then the logical queue's own keys (its shard placement): refused before anything goes when a shard has active jobs. */
  async obliterate(queue: string, force: boolean): Promise<ObliterateOutcome> {
    if (queue !== this.queue) return this.base.obliterate(queue, force);
    if (!force) {
      const active = (await this.each(async (name) => (await this.base.getCounts(name)).active)).reduce((n, m) => n + m, 0);
      if (active > 0) return { status: 'active', active };
    }
    for (const name of await this.shards()) {
      const outcome = await this.base.obliterate(name, force);
      if (outcome.status === 'active') return outcome;
    }
    const outcome = await this.base.obliterate(queue, force);
    // The placement is gone: a later use of the queue places its shards anew.
    this.names = undefined;
    this.placing = undefined;
    return outcome;
  }
}
