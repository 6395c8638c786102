import type { ProcessResult } from './contender.js';
import { percentile } from './measure.js';

/** One throughput figure and the Redis commands per job it took. */
export interface Throughput {
  perSec: number;
  cmdsPerJob: number;
}

export const CONTENDERS = ['Spool', 'BullMQ', 'bee-queue'] as const;

/** The latency samples of a bare PING after the latency row's pause: the floor of add-to-start (RedisProbe.pingAfterPause). */
export const FLOOR = 'PING';

/** Everything one bench run measured, keyed `${row}/${contender}`. */
export class Results {
  private readonly best = new Map<string, Throughput>();
  private readonly samples = new Map<string, number[]>();
  /** used_memory grown per waiting job, bytes, per contender. */
  readonly memory = new Map<string, number>();
  /** used_memory grown per retained completed job (every job kept), bytes, per contender. */
  readonly memoryCompleted = new Map<string, number>();
  /** Of the best grouped run: when the first and the last group finished, and the run's length, ms. */
  groupSpread: { min: number; max: number; ms: number } | undefined;

  constructor(
    readonly jobs: number,
    readonly groups: number,
  ) {}

  /** Keeps the best of the repeats. */
  keep(key: string, t: Throughput): boolean {
    const prev = this.best.get(key);
    if (prev && prev.perSec >= t.perSec) return false;
    this.best.set(key, t);
    return true;
  }

  keepGroups(t: Throughput, result: ProcessResult): void {
    if (!this.keep('groups/Spool', t)) return;
    const done = [...result.groupDone.values()];
    this.groupSpread = { min: Math.min(...done), max: Math.max(...done), ms: result.ms };
  }

  get(row: string, contender: string): Throughput | undefined {
    return this.best.get(`${row}/${contender}`);
  }

  addLatency(contender: string, samples: readonly number[]): void {
    this.samples.set(contender, [...(this.samples.get(contender) ?? []), ...samples].sort((a, b) => a - b));
  }

  /** Percentile of every latency sample of every repeat, ms. */
  latency(contender: string, p: number): number | undefined {
    const s = this.samples.get(contender);
    return s ? percentile(s, p) : undefined;
  }

  /** Redis commands per job for add (one by one) + claim + complete (process c100 at that retention). */
  commandsPerJob(contender: string, retention: string): number | undefined {
    const add = this.get('add-single', contender);
    const processed = this.get(`c100-${retention}`, contender);
    return add && processed ? add.cmdsPerJob + processed.cmdsPerJob : undefined;
  }
}
