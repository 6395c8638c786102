import type { Work } from './contender.js';

/**
 * The honest rows (issue 39): handlers that await I/O, stood in for by
 * setTimeout, where a real app's time goes. Prefetch and batched completions
 * carry much of Spool's lead on no-op handlers; here the handler's wait bounds
 * every library at concurrency / mean handler time, and what is left to
 * compare is how close each one gets to that bound.
 */
export interface HandlerRow {
  /** Results key prefix, `${key}-${retention}`. */
  readonly key: string;
  readonly label: string;
  readonly concurrency: number;
  /** Mean handler time, ms: the bound is concurrency / meanMs jobs per ms. */
  readonly meanMs: number;
  readonly work: Work;
}

const io = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One job in ten (i % 10 === 9) waits 200 ms, the rest 1 ms: spread evenly through a FIFO queue. */
const mixed: Work = (data) => io(data.i % 10 === 9 ? 200 : 1);
const MIXED_MEAN_MS = 0.9 * 1 + 0.1 * 200;

export const HANDLER_ROWS: readonly HandlerRow[] = [10, 100].flatMap((concurrency) => [
  ...[1, 5, 20].map((ms) => ({ key: `io${ms}-c${concurrency}`, label: `${ms} ms handler, c${concurrency}`, concurrency, meanMs: ms, work: () => io(ms) })),
  { key: `mixed-c${concurrency}`, label: `mixed 90% 1 ms / 10% 200 ms, c${concurrency}`, concurrency, meanMs: MIXED_MEAN_MS, work: mixed },
]);

/** The best a library can do on a row, jobs/s: every slot always busy (setTimeout's own lateness aside). */
export function handlerBound(row: HandlerRow): number {
  return (row.concurrency / row.meanMs) * 1000;
}

/**
 * Jobs for one run of a row: about `seconds` at the bound (a 20 ms handler at
 * c10 is 500 jobs/s at best, so a fixed N would take minutes there and
 * milliseconds at 1 ms c100), at most `--jobs`, at least 20 rounds of the
 * slots. `seconds` follows --jobs: 1.5 s at the default 20,000, 0.5 s for a
 * quick --jobs=2000 check.
 */
export function handlerJobs(row: HandlerRow, jobs: number): number {
  const seconds = Math.min(1.5, Math.max(0.5, jobs / 10_000));
  return Math.max(20 * row.concurrency, Math.min(jobs, Math.round(handlerBound(row) * seconds)));
}
