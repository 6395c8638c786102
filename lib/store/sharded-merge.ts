import type { JobCounts, MetricsRecord, MinuteCounts, MinuteRecord, QueueLimits } from './store.js';

/** One logical queue's counts: the sum of its shards'. */
export function sumCounts(all: readonly JobCounts[]): JobCounts {
  const total: Record<string, number> = {};
  for (const counts of all) {
    for (const [state, n] of Object.entries(counts)) total[state] = (total[state] ?? 0) + n;
  }
  return total as JobCounts;
}

function earliest(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : Math.min(...known);
}

function largest(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : Math.max(...known);
}

function sumMinuteCounts(same: readonly MinuteCounts[]): MinuteCounts {
  const sum = (field: 'completed' | 'failed' | 'deadLettered' | 'retried' | 'stalled' | 'durationSum'): number => same.reduce((n, m) => n + m[field], 0);
  const buckets = Math.max(0, ...same.map((m) => m.durations.length));
  return {
    completed: sum('completed'),
    failed: sum('failed'),
    deadLettered: sum('deadLettered'),
    retried: sum('retried'),
    stalled: sum('stalled'),
    durationSum: sum('durationSum'),
    durations: Array.from({ length: buckets }, (_, k) => same.reduce((n, m) => n + (m.durations[k] ?? 0), 0)),
  };
}

/**
 * Minutes are aligned on the clock (every shard's list ends at the current minute), so shard i's minute k is minute k.
 * Each shard gives its own job names their slots: a name is the sum of the shards where it has one, the others' the rest.
 */
function sumMinutes(lists: readonly (readonly MinuteRecord[])[]): MinuteRecord[] {
  const longest = lists.reduce((a, b) => (b.length > a.length ? b : a), [] as readonly MinuteRecord[]);
  return longest.map((minute) => {
    const same = lists.map((list) => list.find((m) => m.at === minute.at)).filter((m): m is MinuteRecord => m !== undefined);
    const names = new Map<string, MinuteCounts[]>();
    for (const m of same) for (const [name, counts] of m.byName) names.set(name, [...(names.get(name) ?? []), counts]);
    return {
      at: minute.at,
      ...sumMinuteCounts(same),
      byName: new Map([...names].map(([name, counts]) => [name, sumMinuteCounts(counts)])),
      otherNames: sumMinuteCounts(same.map((m) => m.otherNames)),
      // The queue's oldest waiting job and its most lagging delayed one are the worst shard's.
      oldestWaitingMs: largest(same.map((m) => m.oldestWaitingMs)),
      delayedLagMs: largest(same.map((m) => m.delayedLagMs)),
    };
  });
}

export function mergeMetrics(all: readonly MetricsRecord[]): MetricsRecord {
  return {
    counts: sumCounts(all.map((m) => m.counts)),
    now: Math.max(...all.map((m) => m.now)),
    oldestWaitingSince: earliest(all.map((m) => m.oldestWaitingSince)),
    earliestDelayedAt: earliest(all.map((m) => m.earliestDelayedAt)),
    minutes: sumMinutes(all.map((m) => m.minutes)),
  };
}

/**
 * Queue-wide limits of a sharded queue are kept by each shard for itself
 * (one script sees one shard), so rateLimit.max and maxWaiting are split
 * evenly: each shard gets ceil(value / shards). Group limits are not split:
 * a group lives whole in one shard.
 */
export function splitLimits(limits: QueueLimits, shards: number): QueueLimits {
  const share = (n: number): number => Math.ceil(n / shards);
  return {
    ...limits,
    ...(limits.rateLimit && { rateLimit: { ...limits.rateLimit, max: share(limits.rateLimit.max) } }),
    ...(typeof limits.maxWaiting === 'number' && { maxWaiting: share(limits.maxWaiting) }),
    ...(typeof limits.concurrency === 'number' && { concurrency: share(limits.concurrency) }),
  };
}

/** The queue-wide view of split limits: a shard's share times the shards (rounded up to a multiple of them). */
export function joinLimits(limits: QueueLimits, shards: number): QueueLimits {
  return {
    ...limits,
    ...(limits.rateLimit && { rateLimit: { ...limits.rateLimit, max: limits.rateLimit.max * shards } }),
    ...(typeof limits.maxWaiting === 'number' && { maxWaiting: limits.maxWaiting * shards }),
    ...(typeof limits.concurrency === 'number' && { concurrency: limits.concurrency * shards }),
  };
}

/**
 * A cursor over shards walked one after the other (purge, pages): the
 * shard being walked and that shard's own cursor. A queue name cannot hold
 * a newline, nor do the stores' cursors.
 */
export function shardCursor(shard: number, inner: string): string {
  return `${shard}\n${inner}`;
}

export function readShardCursor(cursor: string | undefined): { readonly shard: number; readonly inner: string } {
  if (!cursor) return { shard: 0, inner: '' };
  const at = cursor.indexOf('\n');
  const shard = at === -1 ? NaN : Number(cursor.slice(0, at));
  if (!Number.isInteger(shard) || shard < 0) return { shard: 0, inner: cursor };
  return { shard, inner: cursor.slice(at + 1) };
}
