import type { RedisClientLike } from '../store/redis-client.js';

/** A BullMQ job as its hash holds it (every value a string), with what the importer reads beside it. */
export interface BullJob {
  /** BullMQ's id (the key's last part). */
  readonly id: string;
  readonly hash: Readonly<Record<string, string>>;
  /** Its children's results (`<jobKey>:processed`: child key -> JSON), when it is or was a flow parent. */
  readonly processed: Readonly<Record<string, string>>;
  /** Lines in its log list (not carried: listed). */
  readonly logs: number;
}

/** The job lists and sets of a BullMQ queue the importer reads, by their key suffix. */
export type BullIndex = 'wait' | 'paused' | 'prioritized' | 'delayed' | 'waiting-children' | 'failed' | 'completed' | 'active';

/** Keys a BullMQ job owns beside its hash (`<jobKey>:<suffix>`). */
const JOB_OWNED = ['logs', 'dependencies', 'processed', 'failed', 'unsuccessful', 'lock'];

/** KEYS[1] the job's index, KEYS[2..] its hash and owned keys; ARGV[1] the id, ARGV[2] '1' when the index is a sorted set. */
const REMOVE_JOB = `if ARGV[2] == '1' then redis.call('ZREM', KEYS[1], ARGV[1]) else redis.call('LREM', KEYS[1], -1, ARGV[1]) end
redis.call('DEL', unpack(KEYS, 2))
return 1`;

/** Sorted-set indexes, walked by score; wait and paused are lists. */
const SORTED: ReadonlySet<BullIndex> = new Set(['prioritized', 'delayed', 'waiting-children', 'failed', 'completed']);

/**
 * Read-only access to one BullMQ queue's keys (BullMQ 5 and 6 share the
 * layout: `<prefix>:<queue>:<suffix>` for indexes, `<prefix>:<queue>:<id>`
 * for a job hash; see BullMQ's src/classes/queue-keys.ts). Every read goes
 * through an index BullMQ keeps: no SCAN. Pages are read one at a time, so
 * memory stays the same however many jobs a queue holds.
 */
export class BullSource {
  readonly base: string;

  constructor(
    private readonly client: RedisClientLike,
    readonly prefix: string,
    readonly queue: string,
  ) {
    this.base = `${prefix}:${queue}:`;
  }

  key(suffix: string): string {
    return this.base + suffix;
  }

  private send<T>(args: readonly string[]): Promise<T> {
    return this.client.sendCommand(args) as Promise<T>;
  }

  /**
   * Ids of an index in the order BullMQ's workers would take them, a page at
   * a time. Lists: BullMQ pushes on the left (LIFO jobs on the right) and
   * takes from the right, so a list is read from its right end. Sorted
   * sets: by score, each page after the last (score, member) read, so
   * entries added or removed meanwhile shift nothing.
   *
   * `removed`: ids of the page just yielded that the caller took out of the
   * index before asking for the next (--remove-imported). A list's unread
   * entries move that many places to the right, and a sorted set has fewer
   * members at the last score: without this, every other page was skipped.
   */
  async *pages(index: BullIndex, size: number, removed?: ReadonlySet<string>): AsyncGenerator<readonly { readonly id: string; readonly score: number }[]> {
    if (!SORTED.has(index)) {
      for (let end = -1; ; ) {
        const ids = await this.send<string[]>(['LRANGE', this.key(index), String(end - size + 1), String(end)]);
        if (ids.length === 0) return;
        yield ids.reverse().map((id) => ({ id, score: 0 }));
        if (ids.length < size) return;
        end -= size - ids.filter((id) => removed?.has(id)).length;
      }
    }
    let min = '-inf';
    let skip = 0;
    let last: number | undefined;
    for (;;) {
      const page = withScores(await this.send<ScoredReply>(['ZRANGE', this.key(index), min, '+inf', 'BYSCORE', 'LIMIT', String(skip), String(size), 'WITHSCORES']));
      if (page.length === 0) return;
      yield page;
      if (page.length < size) return;
      // Next page: from the last score read, past the members of that score already read.
      const score = page[page.length - 1]!.score;
      const same = page.filter((e) => e.score === score && !removed?.has(e.id)).length;
      skip = score === last ? skip + same : same;
      last = score;
      min = String(score);
    }
  }

  /** How many entries an index holds. */
  async size(index: BullIndex): Promise<number> {
    return Number(await this.send<number>([SORTED.has(index) ? 'ZCARD' : 'LLEN', this.key(index)]));
  }

  /** The jobs of `ids` (null for one whose hash is gone), in one round of pipelined reads. */
  readJobs(ids: readonly string[]): Promise<(BullJob | null)[]> {
    return Promise.all(
      ids.map(async (id) => {
        const jobKey = this.key(id);
        const [hash, processed, logs] = await Promise.all([
          this.send<Record<string, string> | string[]>(['HGETALL', jobKey]),
          this.send<Record<string, string> | string[]>(['HGETALL', `${jobKey}:processed`]),
          this.send<number>(['LLEN', `${jobKey}:logs`]),
        ]);
        const fields = asRecord(hash);
        if (Object.keys(fields).length === 0) return null;
        return { id, hash: fields, processed: asRecord(processed), logs: Number(logs) };
      }),
    );
  }

  /** BullMQ marks a paused queue with the meta field `paused` (v5 also moves its waiting jobs to the `paused` list). */
  async isPaused(): Promise<boolean> {
    return Number(await this.send<number>(['HEXISTS', this.key('meta'), 'paused'])) === 1;
  }

  /** A flow parent's children still pending (child job keys). */
  async dependencies(jobId: string): Promise<string[]> {
    return this.send<string[]>(['SMEMBERS', this.key(`${jobId}:dependencies`)]);
  }

  /** A flow parent's children that failed under ignoreDependencyOnFailure: child key -> failed reason. */
  async ignoredFailures(jobId: string): Promise<Record<string, string>> {
    return asRecord(await this.send<Record<string, string> | string[]>(['HGETALL', this.key(`${jobId}:failed`)]));
  }

  /** Whether the job is in a sorted-set index (O(log n)). */
  async inSorted(index: BullIndex, id: string): Promise<boolean> {
    return (await this.send<string | null>(['ZSCORE', this.key(index), id])) !== null;
  }

  /** Whether a worker holds the job now (the active list is as short as the workers' concurrency). */
  async isActive(id: string): Promise<boolean> {
    return (await this.send<number | null>(['LPOS', this.key('active'), id])) !== null;
  }

  /** Job schedulers and legacy repeatable jobs: id (or repeat key) and the next run (ms). */
  async repeats(): Promise<{ readonly key: string; readonly next: number }[]> {
    return withScores(await this.send<ScoredReply>(['ZRANGE', this.key('repeat'), '0', '-1', 'WITHSCORES'])).map((e) => ({ key: e.id, next: e.score }));
  }

  async repeatHash(key: string): Promise<Record<string, string>> {
    return asRecord(await this.send<Record<string, string> | string[]>(['HGETALL', this.key(`repeat:${key}`)]));
  }

  async hasRepeat(key: string): Promise<boolean> {
    return (await this.send<string | null>(['ZSCORE', this.key('repeat'), key])) !== null;
  }

  /**
   * Removes one job BullMQ held (--remove-imported): from its index and with
   * its own keys, in one script (atomic, and safe on a connection others
   * share). `LREM -1` looks from the right end, where the importer read it.
   */
  async removeJob(index: BullIndex, id: string): Promise<void> {
    const jobKey = this.key(id);
    const keys = [this.key(index), jobKey, ...JOB_OWNED.map((suffix) => `${jobKey}:${suffix}`)];
    await this.send(['EVAL', REMOVE_JOB, String(keys.length), ...keys, id, SORTED.has(index) ? '1' : '0']);
  }

  /** Removes a job scheduler or legacy repeatable entry (--remove-imported): its index entry and its hash. */
  async removeRepeat(key: string): Promise<void> {
    await Promise.all([this.send(['ZREM', this.key('repeat'), key]), this.send(['DEL', this.key(`repeat:${key}`)])]);
  }
}

/** ZRANGE WITHSCORES: a flat list (RESP2), or [member, score] pairs (RESP3). */
type ScoredReply = (string | number | [string, string | number])[];

function withScores(reply: ScoredReply): { id: string; score: number }[] {
  const out: { id: string; score: number }[] = [];
  for (let i = 0; i < reply.length; i++) {
    const entry = reply[i]!;
    if (Array.isArray(entry)) out.push({ id: String(entry[0]), score: Number(entry[1]) });
    else out.push({ id: String(entry), score: Number(reply[++i]) });
  }
  return out;
}

/** node-redis 6 answers HGETALL with an object (RESP2: a flat list in some setups): either becomes a record. */
function asRecord(reply: Record<string, string> | string[] | null): Record<string, string> {
  if (reply === null) return {};
  if (!Array.isArray(reply)) return reply;
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < reply.length; i += 2) out[reply[i]!] = reply[i + 1]!;
  return out;
}

/** A BullMQ job key (`<prefix>:<queue>:<id>`) read back as queue and id; undefined when it is under another prefix. */
export function parseJobKey(prefix: string, jobKey: string): { readonly queue: string; readonly id: string } | undefined {
  if (!jobKey.startsWith(`${prefix}:`)) return undefined;
  const rest = jobKey.slice(prefix.length + 1);
  // BullMQ refuses queue names with a colon: the first one ends the queue name.
  const cut = rest.indexOf(':');
  return cut > 0 ? { queue: rest.slice(0, cut), id: rest.slice(cut + 1) } : undefined;
}
