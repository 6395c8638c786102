import { createInterface } from 'node:readline/promises';
import { SingleBar } from 'cli-progress';
import { listQueues } from '../engine/list-queues.js';
import { Queue } from '../engine/queue.js';
import type { SpoolLogger } from '../logger.js';
import { RedisUnavailableError } from '../store/errors.js';
import { RedisStore } from '../store/redis-store.js';
import type { Store } from '../store/store.js';
import { PostgresStore } from '../postgres/postgres-store.js';
import { PostgresSchemaMissingError, PostgresSchemaTooNewError, PostgresUnavailableError } from '../postgres/errors.js';
import { CliError, UsageError } from './errors.js';
import { formatCount } from './format.js';
import { connectionOf, safeUrl, type ConnectionFlags } from './connection.js';

/** The options every command has (commander's optsWithGlobals()). */
export interface GlobalOptions extends ConnectionFlags {
  /** The shard count of the queues named (Queue option `shards`). */
  readonly shards?: string;
  readonly prefix: string;
  /** A PostgreSQL database (PostgresStore) instead of Redis. */
  readonly postgresUrl?: string;
  /** The PostgreSQL schema of Spool's tables (with --postgres-url). */
  readonly schema: string;
  readonly json?: boolean;
}

export { safeUrl };

export const DEFAULT_URL = 'redis://127.0.0.1:6379';

/** Store warnings (e.g. maxmemory-policy) go to stderr, one line each; nothing else is logged. */
const stderrLogger: SpoolLogger = {
  log: () => undefined,
  warn: (message: string) => process.stderr.write(`spool: warning: ${message}\n`),
  error: (message: string) => process.stderr.write(`spool: ${message}\n`),
};

/** What a command works with: a connected store and how to talk to the operator. */
/** --postgres-url checked: a postgres:// or postgresql:// URL. */
export function checkPostgresUrl(text: string): void {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`--postgres-url "${text}" is not a URL: use postgres://[user:password@]host:port/database (or set SPOOL_POSTGRES_URL)`);
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new CliError(`--postgres-url "${safeUrl(text)}" is not a PostgreSQL URL: it must start with postgres:// or postgresql://`);
  }
}

/** A PostgresStore for --postgres-url, connected; `migrate`: create or upgrade the schema (spool migrate only). */
export async function openPostgres(options: GlobalOptions, migrate: boolean): Promise<PostgresStore> {
  const url = options.postgresUrl!;
  checkPostgresUrl(url);
  const store = new PostgresStore({ connectionString: url, schema: options.schema, migrate, poolSize: 2 });
  try {
    await store.connect();
  } catch (err) {
    await store.disconnect().catch(() => undefined);
    if (err instanceof PostgresUnavailableError) {
      const cause = (err.cause as { message?: string } | undefined)?.message;
      throw new CliError(`cannot reach PostgreSQL at ${safeUrl(url)}${cause ? ` (${cause})` : ''}: check that it runs, and --postgres-url or SPOOL_POSTGRES_URL`);
    }
    if (err instanceof PostgresSchemaMissingError || err instanceof PostgresSchemaTooNewError) throw new CliError(err.message);
    throw err;
  }
  return store;
}

export class Context {
  private constructor(
    readonly store: Store,
    readonly options: GlobalOptions,
  ) {}

  static async open(options: GlobalOptions): Promise<Context> {
    if (options.postgresUrl !== undefined) {
      if (options.cluster !== undefined) throw new UsageError('--postgres-url and --cluster name two stores: give one');
      return new Context(await openPostgres(options, false), options);
    }
    const { connection, where, flag } = connectionOf(options);
    if (options.shards !== undefined && !/^[1-9]\d{0,2}$/.test(options.shards)) {
      throw new UsageError(`--shards "${options.shards}" is not a shard count: give the number the queue's Queue was created with, e.g. --shards 3`);
    }
    const store = new RedisStore({ ...connection, prefix: options.prefix, logger: stderrLogger });
    try {
      await store.connect();
    } catch (err) {
      await store.disconnect().catch(() => undefined);
      if (err instanceof RedisUnavailableError) {
        const cause = (err.cause as { message?: string } | undefined)?.message;
        throw new CliError(`cannot reach Redis at ${where}${cause ? ` (${cause})` : ''}: check that it runs, and ${flag}`);
      }
      throw err;
    }
    return new Context(store, options);
  }

  get json(): boolean {
    return this.options.json === true;
  }

  close(): Promise<void> {
    return this.store.disconnect();
  }

  /**
   * The queue, checked to exist: a queue with no job and no settings is
   * reported with the queues that do exist (a typo is the usual cause).
   */
  async queue(name: string): Promise<Queue> {
    const queue = await this.queueNamed(name);
    const counts = await queue.getCounts();
    const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
    if (total > 0 || (await queue.isPaused())) return queue;
    const known = await listQueues(this.store);
    if (known.includes(name)) return queue;
    throw new CliError(
      `no queue "${name}" under prefix "${this.options.prefix}": queues there: ${known.join(', ') || 'none'} (check the name, --prefix, and --url)`,
    );
  }

  /**
   * A Queue of this store (no check that it exists), sharded as --shards
   * says, else as its stored placement says: a sharded queue is seen whole
   * without --shards. A --shards that differs from the placement is refused
   * (ShardCountMismatchError) at the first read.
   */
  async queueNamed(name: string): Promise<Queue> {
    const shards = this.options.shards === undefined ? await this.store.shardCount?.(name) : Number(this.options.shards);
    return new Queue(name, { store: this.store, shards });
  }

  /** A line (or block) of human output; nothing in --json mode. */
  say(text: string): void {
    if (!this.json) process.stdout.write(`${text}\n`);
  }

  /** The result of a command: JSON in --json mode, else the human text. */
  result(json: unknown, human: string): void {
    process.stdout.write(this.json ? `${JSON.stringify(json)}\n` : `${human}\n`);
  }

  /**
   * Asks before a change to jobs. On a terminal: a y/N question on stderr.
   * Elsewhere (scripts, CI) only --yes goes ahead.
   */
  confirm(what: string, yes: boolean | undefined): Promise<void> {
    return confirmChange(what, yes);
  }

  /**
   * A progress bar on stderr while `work` runs, for `total` jobs or more
   * than `threshold`, when stdout is a terminal and output is for humans.
   * `done()` says how far the work is; it is read every 200 ms.
   */
  async withProgress<T>(label: string, total: number, done: () => Promise<number>, work: () => Promise<T>, threshold = 1000): Promise<T> {
    if (this.json || !process.stdout.isTTY || total < threshold) return work();
    return progress(label, total, done, work);
  }
}

/** Context.confirm() for commands without a store (spool outbox): a y/N question on a terminal, else only --yes. */
export async function confirmChange(what: string, yes: boolean | undefined): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY || !process.stderr.isTTY) {
    throw new UsageError(`refusing to ${what} without confirmation: stdin is not a terminal; add --yes to go ahead`);
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${what}? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('cancelled: nothing was changed');
  } finally {
    rl.close();
  }
}

/** A bar on stderr, updated from done() every 200 ms until work settles. */
export async function progress<T>(label: string, total: number, done: () => Promise<number>, work: () => Promise<T>): Promise<T> {
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% {value}/{total} jobs, {eta_formatted} left`,
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: true,
    formatValue: (v, _o, type) => (type === 'value' || type === 'total' ? formatCount(v) : String(v)),
  });
  bar.start(total, 0);
  let polling = true;
  const poll = (async () => {
    while (polling) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (polling) bar.update(Math.min(total, Math.max(0, await done().catch(() => 0))));
    }
  })();
  try {
    const result = await work();
    bar.update(total);
    return result;
  } finally {
    polling = false;
    await poll;
    bar.stop();
  }
}
