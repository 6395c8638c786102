import { InvalidArgumentError } from '../engine/errors.js';
import { validateQueueName } from '../engine/names.js';
import { checkOptions, describe, unknownKeys } from '../common/validation.js';
import { UnknownOptionError } from '../common/errors.js';
import type { RedisClientLike } from '../store/redis-client.js';
import { RedisUnavailableError } from '../store/errors.js';
import { openOnce } from '../store/command-connection.js';
import { CONNECTION_KEYS, resolveConnection, type HostConnection, type SentinelConnection, type UrlConnection } from '../store/connections/options.js';
import { openClient } from '../store/connections/open-client.js';
import { CONNECTION_HINTS } from '../common/option-hints.js';
import type { Store } from '../store/store.js';
import { ImportRun } from './import-run.js';
import { BULL_STATES, DEFAULT_STATES, ReportBuilder, type BullState, type ImportProgress, type ImportReport, type JobNote } from './report.js';

/** Options of `importFromBullMQ()`: where BullMQ's jobs are read, which queues and states, and where they go. */
export interface ImportFromBullMQOptions {
  /**
   * BullMQ's Redis: a URL, a connection object as the store takes it (BullMQ's
   * own `{ host, port, password, tls }` fits; a Sentinel setup too), or a
   * connected node-redis client (left open). Only read, unless removeImported.
   */
  readonly from: string | RedisClientLike | UrlConnection | HostConnection | SentinelConnection;
  /** The BullMQ queue(s) to import, each into the Spool queue of the same name; a flow's queues go in one run. */
  readonly queue: string | readonly string[];
  /** BullMQ's key prefix. Default 'bull'. */
  readonly bullPrefix?: string;
  /** Where the jobs go (its prefix is Spool's). */
  readonly store: Store;
  /** What to read, by BullMQ's names. Default: everything but completed (see DEFAULT_STATES). */
  readonly states?: readonly BullState[];
  /** Read and report what would be imported; write nothing anywhere. */
  readonly dryRun?: boolean;
  /** Remove each BullMQ job (and imported scheduler) once its Spool copy is written. Default false: BullMQ's keys are only read. */
  readonly removeImported?: boolean;
  /** Jobs read and written per round. Default 500. */
  readonly batchSize?: number;
  /** Called after each page: for a progress bar. */
  readonly onProgress?: (progress: ImportProgress) => void;
  /** Every job the report lists (skipped, or imported with something not carried over), also past noteLimit. */
  readonly onNote?: (note: JobNote) => void;
  /** How many notes the report keeps. Default 1,000. */
  readonly noteLimit?: number;
}

const OPTIONS: readonly (keyof ImportFromBullMQOptions)[] = ['from', 'queue', 'bullPrefix', 'store', 'states', 'dryRun', 'removeImported', 'batchSize', 'onProgress', 'onNote', 'noteLimit'];

function integer(value: unknown, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new InvalidArgumentError(field, `must be an integer from ${min} to ${max}, got ${describe(value)}`);
  }
  return value;
}

/**
 * Brings a BullMQ queue's jobs into Spool: waiting (in the order BullMQ
 * would run them), prioritized, delayed (due when they were due), flow
 * parents and children, dead letters with their errors, job schedulers and
 * legacy repeatable jobs, and the paused state. Reads BullMQ 5 and 6 key
 * layouts through their indexes, a page at a time; writes through
 * Store.importJobs(), keyed by BullMQ's id, so running it again (after a
 * crash, or to take what arrived meanwhile) writes nothing twice.
 *
 * @example
 * const report = await importFromBullMQ({ from: 'redis://old:6379', queue: 'emails', store });
 * console.log(report.queues[0].states.delayed); // { found, imported, existing, skipped, ... }
 */
export async function importFromBullMQ(options: ImportFromBullMQOptions): Promise<ImportReport> {
  checkOptions<ImportFromBullMQOptions>(options, OPTIONS, 'importFromBullMQ options');
  const { store } = options;
  const importJobs = store?.importJobs?.bind(store);
  if (!importJobs) throw new InvalidArgumentError('importFromBullMQ options.store', 'cannot import jobs (it has no importJobs)', 'use a RedisStore or a MemoryStore');
  const queues = (typeof options.queue === 'string' ? [options.queue] : Array.isArray(options.queue) ? options.queue : [undefined]).map((q, i) =>
    validateQueueName(q, typeof options.queue === 'string' ? 'importFromBullMQ options.queue' : `importFromBullMQ options.queue[${i}]`),
  );
  if (queues.length === 0) throw new InvalidArgumentError('importFromBullMQ options.queue', 'names no queue');
  const prefix = options.bullPrefix ?? 'bull';
  if (typeof prefix !== 'string' || prefix.length === 0) throw new InvalidArgumentError('importFromBullMQ options.bullPrefix', `must be BullMQ's key prefix, got ${describe(prefix)}`);
  const states = options.states ?? DEFAULT_STATES;
  if (!Array.isArray(states) || states.some((s) => !BULL_STATES.includes(s))) {
    throw new InvalidArgumentError('importFromBullMQ options.states', `must list some of ${BULL_STATES.join(', ')}, got ${describe(states)}`);
  }
  const batchSize = integer(options.batchSize, 'importFromBullMQ options.batchSize', 1, 10_000, 500);
  const noteLimit = integer(options.noteLimit, 'importFromBullMQ options.noteLimit', 0, 1_000_000, 1000);
  const { client, owned } = sourceClient(options.from);
  if (owned) {
    try {
      // At the first error, not after node-redis's reconnect attempts: an import is run by hand, or a script waits for it.
      await openOnce(client);
    } catch (err) {
      client.destroy();
      throw new RedisUnavailableError(BULLMQ_REDIS, err);
    }
  }
  try {
    const builder = new ReportBuilder(options.dryRun === true, noteLimit, options.onNote);
    await new ImportRun({
      client,
      prefix,
      store,
      importJobs,
      queues,
      states: new Set(states),
      dryRun: options.dryRun === true,
      removeImported: options.removeImported === true,
      batchSize,
      builder,
      onProgress: options.onProgress,
    }).run(BULL_STATES);
    return builder.report;
  } finally {
    if (owned) await client.close().catch(() => undefined);
  }
}

/** The `what` of the RedisUnavailableError thrown when BullMQ's Redis cannot be reached (a TLS or auth failure included). */
export const BULLMQ_REDIS = "BullMQ's Redis (importFromBullMQ options.from)";

/** BullMQ's Redis as a client: made (and owned) for a URL or a connection object, taken as it is when it is one. */
function sourceClient(from: unknown): { client: RedisClientLike; owned: boolean } {
  const field = 'importFromBullMQ options.from';
  if (typeof from === 'string') return { client: openClient(resolveConnection({ url: from }, field)), owned: true };
  if (typeof from === 'object' && from !== null && typeof (from as { sendCommand?: unknown }).sendCommand === 'function') return { client: from as RedisClientLike, owned: false };
  const proto: unknown = typeof from === 'object' && from !== null ? Object.getPrototypeOf(from) : undefined;
  if (proto !== Object.prototype && proto !== null) {
    throw new InvalidArgumentError(field, `must be a Redis URL, a connection object or a node-redis client, got ${describe(from)}`);
  }
  const connection = from as Record<string, unknown>;
  const unknown = unknownKeys(connection, CONNECTION_KEYS, field, CONNECTION_HINTS);
  if (unknown.length > 0) throw new UnknownOptionError(unknown);
  const resolved = resolveConnection(connection, field);
  if (resolved.kind === 'cluster' || resolved.kind === 'client') {
    throw new InvalidArgumentError(`${field}.${resolved.kind}`, 'is not taken here', 'BullMQ on Redis Cluster: pass a connected node-redis cluster client as from');
  }
  return { client: openClient(resolved), owned: true };
}
