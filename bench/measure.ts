import { performance } from 'node:perf_hooks';
import { createClient } from 'redis';
import type { BenchData, ProcessResult } from './contender.js';

/** Admin connection of the bench: wipes the server between rows and reads its command counters. */
export class RedisProbe {
  private readonly client;

  constructor(url: string) {
    this.client = createClient({ url });
  }

  async open(): Promise<void> {
    await this.client.connect();
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  async reset(): Promise<void> {
    await this.client.sendCommand(['FLUSHALL']);
    await this.client.sendCommand(['CONFIG', 'RESETSTAT']);
  }

  /**
   * Commands Redis executed since the last reset, those run inside scripts
   * included (commandstats counts them). The probe's own INFO and CONFIG calls
   * are left out.
   */
  async commands(): Promise<number> {
    const info = String(await this.client.sendCommand(['INFO', 'commandstats']));
    let total = 0;
    for (const line of info.split('\n')) {
      const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
      if (match && match[1] !== 'info' && !match[1]!.startsWith('config')) total += Number(match[2]);
    }
    return total;
  }

  /** Any command of the admin connection (profile mode: CONFIG SET, SLOWLOG, INFO cpu). */
  send(args: string[]): Promise<unknown> {
    return this.client.sendCommand(args);
  }

  /**
   * `samples` PING round trips, each after `pauseMs` of quiet: the floor of
   * an add-to-start latency measured with the same pause (an add travels
   * producer -> Redis -> worker, two hops as a PING's, plus the work at each
   * end), ms, sorted.
   */
  async pingAfterPause(samples: number, pauseMs: number): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < samples; i++) {
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      const t0 = performance.now();
      await this.client.sendCommand(['PING']);
      out.push(performance.now() - t0);
    }
    return out.sort((a, b) => a - b);
  }

  /** INFO memory used_memory, bytes. */
  async usedMemory(): Promise<number> {
    const info = String(await this.client.sendCommand(['INFO', 'memory']));
    const match = /^used_memory:(\d+)/m.exec(info);
    if (!match) throw new Error('INFO memory has no used_memory line');
    return Number(match[1]);
  }

  /** Commands Redis executed while `run` ran. */
  async count<T>(run: () => Promise<T>): Promise<{ value: T; commands: number }> {
    await this.client.sendCommand(['CONFIG', 'RESETSTAT']);
    const value = await run();
    return { value, commands: await this.commands() };
  }
}

export function elapsed(start: number): number {
  return performance.now() - start;
}

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[at]!;
}

/** Runs `task(i)` for i < n with at most `inFlight` running at once. */
export async function inFlight(n: number, width: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < n) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, n) }, lane));
}

/** Jobs each contender runs through every path before the timed rows (see Contender.warmUp). */
export const WARM_UP_JOBS = 3000;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The longest one process run may take, ms: a run whose jobs stop completing
 * (a lost job, a stuck worker) fails the bench instead of hanging it, so a
 * full run ends in bounded time. The slowest healthy run (BullMQ or
 * bee-queue at c1 over 20,000 jobs) takes seconds.
 */
export const RUN_LIMIT_MS = 180_000;

/**
 * Times a worker from its creation until `n` jobs completed, noting when each
 * group's last job finished. `startWorker` creates it and calls back per completion.
 */
export async function timeCompletions(
  n: number,
  startWorker: (onCompleted: (data: BenchData) => void) => { close(): Promise<unknown> },
): Promise<ProcessResult> {
  const groupDone = new Map<number, number>();
  let done = 0;
  let finished!: () => void;
  const all = new Promise<void>((resolve) => (finished = resolve));
  const start = performance.now();
  const worker = startWorker((data) => {
    groupDone.set(data.g, performance.now() - start);
    if (++done === n) finished();
  });
  let timer: NodeJS.Timeout | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`only ${done} of ${n} jobs completed after ${RUN_LIMIT_MS / 1000} s: a stuck run`)), RUN_LIMIT_MS);
  });
  try {
    await Promise.race([all, stuck]);
  } finally {
    clearTimeout(timer);
  }
  const ms = performance.now() - start;
  await worker.close();
  return { ms, groupDone };
}
