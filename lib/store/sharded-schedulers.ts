import type { SchedulerRecord, SchedulerStore, SchedulerWrite } from './scheduler-store.js';

/**
 * Schedulers of a sharded queue live in its first shard: their ticks are
 * added there by that shard's promote script (one script, one slot), and
 * workers claiming round-robin over the shards run them like any job.
 */
export class ShardedSchedulers implements SchedulerStore {
  constructor(
    private readonly base: SchedulerStore,
    private readonly queue: string,
    private readonly shards: () => Promise<readonly string[]>,
  ) {}

  private async home(queue: string): Promise<string> {
    return queue === this.queue ? (await this.shards())[0]! : queue;
  }

  async upsert(queue: string, scheduler: SchedulerWrite): Promise<{ readonly changed: boolean; readonly next: number | null }> {
    return this.base.upsert(await this.home(queue), scheduler);
  }

  async refill(queue: string, id: string, spec: string, times: readonly number[]): Promise<number> {
    return this.base.refill(await this.home(queue), id, spec, times);
  }

  async remove(queue: string, id: string): Promise<boolean> {
    return this.base.remove(await this.home(queue), id);
  }

  async pause(queue: string, id: string): Promise<'paused' | 'already' | 'unknown'> {
    if (!this.base.pause) return 'unknown';
    return this.base.pause(await this.home(queue), id);
  }

  async resume(queue: string, id: string): Promise<{ readonly outcome: 'resumed' | 'running' | 'unknown'; readonly next: number | null }> {
    if (!this.base.resume) return { outcome: 'unknown', next: null };
    return this.base.resume(await this.home(queue), id);
  }

  async get(queue: string, id: string): Promise<SchedulerRecord | null> {
    return this.base.get(await this.home(queue), id);
  }

  async list(queue: string): Promise<SchedulerRecord[]> {
    return this.base.list(await this.home(queue));
  }
}
