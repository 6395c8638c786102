import type { JobRecord, NewJob } from './store.js';

/**
 * Which shard of a sharded queue a job lives in. A job's shard must be found
 * again from what a later caller knows, so the key is, in order: its group
 * (a group stays whole in one shard, so its order, concurrency cap and rate
 * limit hold as on one Redis), its dedup key (duplicates must meet in one
 * script), else its id. Lookups by id try the id's shard first and then the
 * others (grouped or deduplicated jobs may live elsewhere).
 */
export function shardKeyOf(job: Pick<NewJob, 'id' | 'group' | 'dedup'>): string {
  if (job.group !== undefined && job.group !== '') return `g:${job.group}`;
  if (job.dedup) return `d:${job.dedup.key}`;
  return `i:${job.id}`;
}

/** The shard of a stored job, by the same rule (a record carries no dedup key: a deduplicated job is found by probing). */
export function recordKeyOf(record: Pick<JobRecord, 'id' | 'group'>): string {
  return record.group !== undefined && record.group !== '' ? `g:${record.group}` : `i:${record.id}`;
}

/** FNV-1a over UTF-16 code units: cheap, stable across processes and versions, spreads short ids well. */
export function shardIndex(key: string, count: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % count;
}

/**
 * The shard each job a worker of this process holds was claimed from, so
 * its completion, failure, renewal, progress and logs go to that shard
 * without a lookup. Entries leave when the job leaves the worker.
 */
export class LeaseShards {
  private readonly byId = new Map<string, number>();

  held(records: readonly JobRecord[], shard: number): void {
    for (const record of records) this.byId.set(record.id, shard);
  }

  of(id: string, count: number): number {
    return this.byId.get(id) ?? shardIndex(`i:${id}`, count);
  }

  done(id: string): void {
    this.byId.delete(id);
  }
}
