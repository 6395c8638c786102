import type {
  AddBatchOutcome, AddOutcome, ClaimOutcome, CompleteOutcome, ExtendOutcome, FailOutcome, Failure, Fetch, ImportedJob, ImportOutcome, JobRecord, Lease, NewJob,
  ReleaseOutcome, Store,
} from './store.js';
import { StoreError } from './store.js';
import { ShardedFlowError } from './sharded-base.js';
import type { Completion, CompleteManyOutcome, CompletionStatus } from './completion.js';
import type { WorkerBeat, WorkerInfo } from './worker-registry.js';
import { shardIndex, shardKeyOf } from './shard-route.js';
import { ShardedChanges } from './sharded-changes.js';
import { ID_BASE, NUMBERED_ID } from './numbered-ids.js';

/** A job of an add and its place in the caller's list. */
interface Pending {
  readonly job: NewJob;
  readonly at: number;
}

/** How many times a job whose number is taken is numbered anew before the add gives up (once is the rule). */
const RENUMBER_ROUNDS = 5;

export { ShardedFlowError } from './sharded-base.js';

/**
 * One logical queue spread over several physical ones (its shards), seen
 * through the Store interface, so Queue, Worker and QueueEvents work on it
 * unchanged. Calls about other queues go straight to the store beneath.
 *
 * Producers route a job by group, dedup key or id (shard-route.ts); workers
 * claim round-robin over the shards and complete where they claimed; reads
 * (counts, metrics, pages, events, verify) merge the shards. What one
 * script guaranteed on one queue now holds per shard: priority and FIFO
 * order, queue-wide rate limits and maxWaiting (split evenly), a jobId's
 * uniqueness (a grouped job's id is unique within its group's shard).
 */
export class ShardedStore extends ShardedChanges implements Store {
  /** Ids for the whole logical queue come from its first shard's counter: unique across the shards, where the id picks the shard. */
  async reserveIds(queue: string, count: number, taken?: string): Promise<number> {
    return this.base.reserveIds(queue === this.queue ? await this.at(0) : queue, count, taken);
  }

  /**
   * Every numbered id of the queue comes from shard 0's counter, and so does
   * a fresh one for a job whose number another job holds (the counter went
   * back: a failover lost its last draws). Shard 0's add renumbers from that
   * counter itself; the other shards report such a job (reportTaken), and it
   * is numbered here from shard 0 (past every block drawn around the taken
   * number) and routed again. A shard renumbering from a counter of its own
   * would hand out numbers that shard 0 draws later, for jobs on other shards.
   */
  async add(queue: string, jobs: readonly NewJob[]): Promise<AddBatchOutcome> {
    if (queue !== this.queue) return this.base.add(queue, jobs);
    const names = await this.shards();
    const outcomes: AddOutcome[] = new Array<AddOutcome>(jobs.length);
    let pending: readonly Pending[] = jobs.map((job, at) => ({ job, at }));
    for (let round = 1; pending.length > 0; round++) {
      const byShard = new Map<number, Pending[]>();
      for (const entry of pending) {
        const k = shardIndex(shardKeyOf(entry.job), this.count);
        byShard.set(k, [...(byShard.get(k) ?? []), entry]);
      }
      const taken: Pending[] = [];
      // NOTE: a batch spread over shards is atomic per shard only; a maxWaiting refusal keeps the other shards' jobs.
      for (const [k, entries] of byShard) {
        const sent = entries.map(({ job }) => (k !== 0 && NUMBERED_ID.test(job.id) ? { ...job, reportTaken: true as const } : job));
        const reply = await this.base.add(names[k]!, sent);
        if (reply.status === 'full') return reply;
        reply.jobs.forEach((outcome, j) => {
          if (!outcome.created && outcome.taken) taken.push(entries[j]!);
          else outcomes[entries[j]!.at] = outcome;
        });
      }
      if (taken.length === 0) break;
      if (round === RENUMBER_ROUNDS) throw new StoreError(`queue "${this.queue}": no free job id found in ${RENUMBER_ROUNDS} draws after its id counter went back; add again`, false);
      pending = await this.renumber(taken);
    }
    return { status: 'added', jobs: outcomes };
  }

  /** Fresh numbers from shard 0's counter for jobs whose numbers are taken, in their order. */
  private async renumber(taken: readonly Pending[]): Promise<Pending[]> {
    const highest = taken.reduce((max, { job }) => (Number(job.id) > Number(max) ? job.id : max), taken[0]!.job.id);
    const last = await this.base.reserveIds(await this.at(0), taken.length, highest);
    return taken.map((entry, j) => ({ ...entry, job: { ...entry.job, id: String(ID_BASE + last - taken.length + 1 + j) } }));
  }

  /** Each job goes to the shard its id picks, as add() would send it; a flow parent or child is refused (flows cannot use a sharded queue). */
  async importJobs(queue: string, jobs: readonly ImportedJob[]): Promise<ImportOutcome[]> {
    const base = this.base.importJobs?.bind(this.base);
    if (!base) throw new StoreError('the store beneath this sharded queue cannot import jobs', true);
    if (queue !== this.queue) return base(queue, jobs);
    if (jobs.some((j) => j.parent || (j.children?.length ?? 0) > 0 || (j.results?.length ?? 0) > 0)) throw new ShardedFlowError(this.queue);
    const names = await this.shards();
    const byShard = new Map<number, number[]>();
    jobs.forEach((job, i) => {
      const k = shardIndex(shardKeyOf(job), this.count);
      byShard.set(k, [...(byShard.get(k) ?? []), i]);
    });
    const outcomes = new Array<ImportOutcome>(jobs.length);
    for (const [k, positions] of byShard) {
      const reply = await base(names[k]!, positions.map((i) => jobs[i]!));
      reply.forEach((outcome, j) => (outcomes[positions[j]!] = outcome));
    }
    return outcomes;
  }

  async claim(queue: string, fetch: Fetch): Promise<ClaimOutcome> {
    if (queue !== this.queue) return this.base.claim(queue, fetch);
    const woken = fetch.woken ? this.notify.takeWoken() : [];
    if (woken.length === 0) return this.claimRound(fetch.count, fetch);
    // Woken by announcements: claim where they came from first, spending those shards' wake-hint budgets.
    const names = await this.shards();
    const jobs: JobRecord[] = [];
    let waitMs = 0;
    for (const [i, k] of woken.entries()) {
      if (jobs.length >= fetch.count) {
        // Filled before reaching them: their announcements stay for the next woken claim.
        this.notify.rewake(woken.slice(i));
        break;
      }
      const outcome = await this.base.claim(names[k]!, { ...fetch, count: fetch.count - jobs.length, woken: true });
      this.leases.held(outcome.jobs, k);
      jobs.push(...outcome.jobs);
      if (outcome.waitMs > 0) waitMs = waitMs === 0 ? outcome.waitMs : Math.min(waitMs, outcome.waitMs);
    }
    if (jobs.length >= fetch.count) return { jobs, waitMs: 0 };
    // Short (a budget spent, or announcements of several shards met in one message turn): a short
    // reply tells the worker the queue is empty, so the other shards are asked too before it says so.
    const rest = await this.claimFrom(
      Array.from({ length: this.count }, (_, k) => k).filter((k) => !woken.includes(k)),
      fetch.count - jobs.length,
      fetch,
      false,
    );
    return { jobs: jobs.concat(rest.jobs), waitMs: jobs.length + rest.jobs.length >= fetch.count ? 0 : Math.max(waitMs, rest.waitMs) };
  }

  /** Round-robin: each call starts one shard further, and goes on until the slots are filled or every shard was asked. */
  private claimRound(count: number, fetch: Fetch, skip?: number): Promise<ClaimOutcome> {
    const start = this.turn++ % this.count;
    const order = Array.from({ length: this.count }, (_, i) => (start + i) % this.count).filter((k) => k !== skip);
    return this.claimFrom(order, count, fetch, false);
  }

  private async claimFrom(order: readonly number[], count: number, fetch: Fetch, woken: boolean): Promise<ClaimOutcome> {
    const names = await this.shards();
    const jobs: JobRecord[] = [];
    let waitMs = 0;
    for (const k of order) {
      if (jobs.length >= count) break;
      const outcome = await this.base.claim(names[k]!, { ...fetch, count: count - jobs.length, woken });
      this.leases.held(outcome.jobs, k);
      jobs.push(...outcome.jobs);
      if (outcome.waitMs > 0) waitMs = waitMs === 0 ? outcome.waitMs : Math.min(waitMs, outcome.waitMs);
    }
    return { jobs, waitMs: jobs.length >= count ? 0 : waitMs };
  }

  async complete(queue: string, lease: Lease, result: string, fetch: Fetch, durationMs?: number): Promise<CompleteOutcome> {
    if (queue !== this.queue) return this.base.complete(queue, lease, result, fetch, durationMs);
    const shard = this.leases.of(lease.id, this.count);
    const outcome = await this.onLease(lease, (name) => this.base.complete(name, lease, result, fetch, durationMs));
    this.leases.held(outcome.next, shard);
    const more = await this.topUp(outcome.next.length, fetch, shard);
    return { ...outcome, next: [...outcome.next, ...more.jobs] };
  }

  /** The completion's shard ran short of next jobs: the others may have some (a short reply tells the worker the queue is empty). */
  private async topUp(got: number, fetch: Fetch, shard: number): Promise<ClaimOutcome> {
    if (got >= fetch.count || this.count === 1) return { jobs: [], waitMs: 0 };
    return this.claimRound(fetch.count - got, fetch, shard);
  }

  async completeMany(queue: string, completions: readonly Completion[], fetch: Fetch): Promise<CompleteManyOutcome> {
    if (queue !== this.queue) return this.base.completeMany(queue, completions, fetch);
    const names = await this.shards();
    const byShard = new Map<number, number[]>();
    completions.forEach((c, i) => {
      const k = this.leases.of(c.lease.id, this.count);
      byShard.set(k, [...(byShard.get(k) ?? []), i]);
    });
    const statuses = new Array<CompletionStatus>(completions.length);
    const groups = [...byShard];
    // The first shard's call claims the next jobs; the others only complete.
    const replies = await Promise.all(
      groups.map(([k, positions], g) => this.base.completeMany(names[k]!, positions.map((i) => completions[i]!), g === 0 ? fetch : { ...fetch, count: 0 })),
    );
    let next: JobRecord[] = [];
    let waitMs = 0;
    replies.forEach((reply, g) => {
      const [k, positions] = groups[g]!;
      reply.statuses.forEach((s, j) => (statuses[positions[j]!] = s));
      this.leases.held(reply.next, k);
      next = next.concat(reply.next);
      waitMs = Math.max(waitMs, reply.waitMs);
    });
    for (const c of completions) this.leases.done(c.lease.id);
    const more = await this.topUp(next.length, fetch, groups[0]?.[0] ?? -1);
    return { statuses, next: next.concat(more.jobs), waitMs: more.jobs.length + next.length >= fetch.count ? 0 : Math.max(waitMs, more.waitMs) };
  }

  fail(queue: string, lease: Lease, failure: Failure): Promise<FailOutcome> {
    if (queue !== this.queue) return this.base.fail(queue, lease, failure);
    return this.onLease(lease, (name) => this.base.fail(name, lease, failure));
  }

  throttle(queue: string, lease: Lease, retryAfter: number, wholeQueue = true): Promise<FailOutcome> {
    if (queue !== this.queue) return this.base.throttle(queue, lease, retryAfter, wholeQueue);
    return this.onLease(lease, (name) => this.base.throttle(name, lease, retryAfter, wholeQueue));
  }

  async extend(queue: string, lockMs: number, leases: readonly Lease[]): Promise<ExtendOutcome[]> {
    if (queue !== this.queue) return this.base.extend(queue, lockMs, leases);
    const names = await this.shards();
    const byShard = new Map<number, number[]>();
    leases.forEach((lease, i) => {
      const k = this.leases.of(lease.id, this.count);
      byShard.set(k, [...(byShard.get(k) ?? []), i]);
    });
    const outcomes = new Array<ExtendOutcome>(leases.length);
    await Promise.all(
      [...byShard].map(async ([k, positions]) => {
        const replies = await this.base.extend(names[k]!, lockMs, positions.map((i) => leases[i]!));
        replies.forEach((o, j) => {
          outcomes[positions[j]!] = o;
          // A lost lease gets no completion or failure from this worker: forget where it was held.
          if (o === 'lost') this.leases.done(leases[positions[j]!]!.id);
        });
      }),
    );
    return outcomes;
  }

  release(queue: string, lease: Lease): Promise<ReleaseOutcome> {
    if (queue !== this.queue) return this.base.release(queue, lease);
    return this.onLease(lease, (name) => this.base.release(name, lease));
  }

  progress(queue: string, lease: Lease, progress: string): Promise<boolean> {
    if (queue !== this.queue) return this.base.progress(queue, lease, progress);
    return this.onLease(lease, (name) => this.base.progress(name, lease, progress), false);
  }

  // One workers list for the sharded queue, kept with its first shard.
  async beat(queue: string, worker: WorkerBeat, staleMs: number): Promise<void> {
    return this.base.beat(queue === this.queue ? await this.at(0) : queue, worker, staleMs);
  }

  async forgetWorker(queue: string, id: string): Promise<void> {
    return this.base.forgetWorker(queue === this.queue ? await this.at(0) : queue, id);
  }

  async requestWorker(queue: string, id: string, paused: boolean): Promise<void> {
    await this.base.requestWorker?.(queue === this.queue ? await this.at(0) : queue, id, paused);
  }

  async takeWorkerRequest(queue: string, id: string): Promise<boolean | null> {
    return (await this.base.takeWorkerRequest?.(queue === this.queue ? await this.at(0) : queue, id)) ?? null;
  }

  async listWorkers(queue: string, staleMs: number): Promise<WorkerInfo[]> {
    return this.base.listWorkers(queue === this.queue ? await this.at(0) : queue, staleMs);
  }

  updateData(queue: string, lease: Lease, data: string): Promise<boolean> {
    if (queue !== this.queue) return this.base.updateData(queue, lease, data);
    return this.onLease(lease, (name) => this.base.updateData(name, lease, data), false);
  }

  log(queue: string, lease: Lease, line: string, keep: number): Promise<number | null> {
    if (queue !== this.queue) return this.base.log(queue, lease, line, keep);
    return this.onLease(lease, (name) => this.base.log(name, lease, line, keep), false);
  }

}
