import type { SpoolLogger } from '../logger.js';
import { stderrLogger } from '../logger.js';
import type { RateLimit, Store } from '../store/store.js';
import type { BackoffStrategy } from './backoff.js';
import { InvalidArgumentError } from './errors.js';
import { assertPlainObject, checkOptions, describe, positiveInteger } from '../common/validation.js';
import { WORKER_HINTS } from '../common/option-hints.js';
import { rateLimit } from './limits.js';
import type { PrefetchOption } from './prefetch.js';
import { resolveFailureLog, type FailureLogLevels, type ResolvedFailureLog } from './failure-log.js';
import { resolveBatchOptions, type BatchOptions, type ResolvedBatchOptions } from './batch.js';
import { resolveSandboxOptions, type ResolvedSandboxOptions, type SandboxOptions } from './sandbox/options.js';

/** Options of `new Worker(queue, handler, options)`: the store, concurrency, leases, retries, shutdown and logging. */
export interface WorkerOptions {
  readonly store: Store;
  /** The queue's shard count, as its Queue was given (docs/operations/cluster.md#sharded-queues). Default 1. */
  readonly shards?: number;
  /** Jobs run at once by this worker. Default 1 (with `batch`: batch.size; then at least batch.size, and a multiple runs that many batches at once). */
  readonly concurrency?: number;
  /** Lease length in ms: a job whose worker stops renewing is re-delivered this long after. Default 30,000. */
  readonly lockDuration?: number;
  /** How often leases are renewed, in ms. Default lockDuration / 2. */
  readonly lockRenewTime?: number;
  /** Stalls (lease expiries) a job survives before it is dead-lettered with reason 'stalled'. Default 1. */
  readonly maxStalledCount?: number;
  /** How often this worker looks for expired leases, in ms. Default 30,000. */
  readonly stalledInterval?: number;
  /** Fallback poll while idle, in case a wake-up message was lost, in ms. Default 5,000. */
  readonly pollInterval?: number;
  /** Most jobs claimed per call. Default: concurrency. */
  readonly claimBatch?: number;
  /**
   * Jobs held beyond `concurrency`, so a slot whose job ended starts the
   * next at once and completions share script calls: a number, 0 (off), or
   * 'auto' (default: about 25 ms of work per slot at the handlers'
   * average, at least four jobs per slot and at most 256, while handlers
   * average under 2 ms; none for longer jobs). Reserved jobs are
   * leased (active in Redis) but not started.
   */
  readonly prefetch?: PrefetchOption;
  /** How long close() lets running jobs finish before it aborts and releases them, in ms. Default 30,000. */
  readonly shutdownTimeout?: number;
  /** Start at construction (default) or when run() is called. */
  readonly autorun?: boolean;
  /** Spacing of retries for jobs added with backoff: { type: 'custom' }. */
  readonly backoffStrategy?: BackoffStrategy;
  /** Lines kept per job log. Default 1,000. */
  readonly keepLogs?: number;
  /**
   * Caps per job name inside this worker, e.g. { resize: 2 }: at most that many
   * run at once; the worker claims other names meanwhile and leaves the rest
   * of that name waiting in their places.
   */
  readonly nameConcurrency?: Readonly<Record<string, number>>;
  /**
   * Queue-wide rate limit, stored in Redis and enforced by every worker of
   * the queue in every process: at most `max` job starts per `duration` ms.
   * Same as queue.configure({ rateLimit }); set at run().
   */
  readonly limiter?: RateLimit;
  /**
   * Largest stored payload this worker runs, in bytes. A bigger one (written
   * by an old producer, another client or by hand) is dead-lettered with
   * reason 'payload-too-large' instead of run. Default 16 MiB.
   */
  readonly maxPayloadBytes?: number;
  readonly logger?: SpoolLogger;
  /**
   * A line on the logger per failed attempt, and per job this worker's
   * reaper takes back from a dead worker: true (default: a warning per
   * dead letter, a debug line per retry or stall), false (none), or
   * { dead?, retry? } with a level ('error' | 'warn' | 'log' | 'debug') or false each.
   * Past linesPerInterval lines (default 10) per queue, kind and reason in
   * `interval` ms (default 30,000), one summary line stands for the rest.
   */
  readonly logFailures?: boolean | FailureLogLevels;
  /** With OpenTelemetry: run each handler in a consumer span continuing the producer's trace. Default true; false: no span. */
  readonly tracing?: boolean;
  /**
   * For a Worker given a handler file instead of a function (see
   * docs/guide/workers.md#sandboxed-processors): threads or processes, memory limit, abort grace.
   */
  readonly sandbox?: SandboxOptions;
  /**
   * The handler takes jobs in batches: (jobs, batch) => one result per job
   * (docs/guide/workers.md#batch-handlers). Each job keeps its own lease, attempts and outcome.
   */
  readonly batch?: BatchOptions;
}

export type ResolvedWorkerOptions = Required<Omit<WorkerOptions, 'shards' | 'backoffStrategy' | 'nameConcurrency' | 'limiter' | 'logFailures' | 'sandbox' | 'batch'>> & {
  readonly sandbox?: ResolvedSandboxOptions;
  readonly batch?: ResolvedBatchOptions;
  readonly logFailures: ResolvedFailureLog;
  readonly backoffStrategy?: BackoffStrategy;
  readonly limiter?: RateLimit;
  readonly nameConcurrency: ReadonlyMap<string, number>;
};

/** Every Worker option (the QueueModule checks its workers defaults against it too). */
export const WORKER_OPTION_KEYS: readonly (keyof WorkerOptions)[] = [
  'store',
  'shards',
  'concurrency',
  'lockDuration',
  'lockRenewTime',
  'maxStalledCount',
  'stalledInterval',
  'pollInterval',
  'claimBatch',
  'prefetch',
  'shutdownTimeout',
  'autorun',
  'backoffStrategy',
  'keepLogs',
  'nameConcurrency',
  'limiter',
  'maxPayloadBytes',
  'logger',
  'logFailures',
  'tracing',
  'sandbox',
  'batch',
];

function ms(value: unknown, field: string, fallback: number): number {
  return value === undefined ? fallback : positiveInteger(value, field);
}

/** Checks worker options and fills in defaults; errors name the field. */
export function resolveWorkerOptions(options: WorkerOptions): ResolvedWorkerOptions {
  checkOptions<WorkerOptions>(options, WORKER_OPTION_KEYS, 'Worker options', WORKER_HINTS);
  if (!options.store) throw new InvalidArgumentError('Worker options.store', 'is required', 'pass a connected RedisStore');
  const batch = options.batch === undefined ? undefined : resolveBatchOptions(options.batch, 'Worker options.batch');
  const concurrency = ms(options.concurrency, 'Worker options.concurrency', batch?.size ?? 1);
  if (batch && concurrency < batch.size) {
    throw new InvalidArgumentError('Worker options.concurrency', `(${concurrency}) is below batch.size (${batch.size}): each job of a batch holds a slot`, 'leave concurrency out (it is then batch.size), or set a multiple of batch.size to run that many batches at once');
  }
  const lockDuration = ms(options.lockDuration, 'Worker options.lockDuration', 30_000);
  const lockRenewTime = ms(options.lockRenewTime, 'Worker options.lockRenewTime', Math.max(1, Math.floor(lockDuration / 2)));
  if (lockRenewTime >= lockDuration) {
    throw new InvalidArgumentError('Worker options.lockRenewTime', `(${lockRenewTime}) must be shorter than lockDuration (${lockDuration})`, 'renew well before the lease expires, e.g. lockDuration / 2');
  }
  const maxStalledCount =
    options.maxStalledCount === undefined ? 1 : options.maxStalledCount === 0 ? 0 : positiveInteger(options.maxStalledCount, 'Worker options.maxStalledCount');
  if (options.autorun !== undefined && typeof options.autorun !== 'boolean') {
    throw new InvalidArgumentError('Worker options.autorun', `must be a boolean, got ${describe(options.autorun)}`);
  }
  if (options.tracing !== undefined && typeof options.tracing !== 'boolean') {
    throw new InvalidArgumentError('Worker options.tracing', `must be a boolean, got ${describe(options.tracing)}`);
  }
  if (options.backoffStrategy !== undefined && typeof options.backoffStrategy !== 'function') {
    throw new InvalidArgumentError('Worker options.backoffStrategy', 'must be a function (attempt, error, jobName) => ms');
  }
  const nameConcurrency = new Map<string, number>();
  if (options.nameConcurrency !== undefined) {
    assertPlainObject(options.nameConcurrency, 'Worker options.nameConcurrency');
    for (const [name, cap] of Object.entries(options.nameConcurrency)) {
      nameConcurrency.set(name, positiveInteger(cap, `Worker options.nameConcurrency.${name}`, concurrency));
    }
  }
  return {
    store: options.store,
    nameConcurrency,
    concurrency,
    lockDuration,
    lockRenewTime,
    maxStalledCount,
    stalledInterval: ms(options.stalledInterval, 'Worker options.stalledInterval', 30_000),
    pollInterval: ms(options.pollInterval, 'Worker options.pollInterval', 5_000),
    claimBatch: ms(options.claimBatch, 'Worker options.claimBatch', concurrency),
    prefetch: prefetchOption(options.prefetch),
    shutdownTimeout: options.shutdownTimeout === 0 ? 0 : ms(options.shutdownTimeout, 'Worker options.shutdownTimeout', 30_000),
    autorun: options.autorun ?? true,
    backoffStrategy: options.backoffStrategy,
    limiter: options.limiter === undefined ? undefined : rateLimit(options.limiter, 'Worker options.limiter'),
    keepLogs: ms(options.keepLogs, 'Worker options.keepLogs', 1_000),
    maxPayloadBytes: ms(options.maxPayloadBytes, 'Worker options.maxPayloadBytes', 16 * 1024 * 1024),
    logger: options.logger ?? stderrLogger,
    logFailures: resolveFailureLog(options.logFailures, 'Worker options.logFailures'),
    tracing: options.tracing ?? true,
    ...(batch && { batch }),
    ...(options.sandbox !== undefined && { sandbox: resolveSandboxOptions(options.sandbox, 'Worker options.sandbox') }),
  };
}

function prefetchOption(value: unknown): PrefetchOption {
  if (value === undefined || value === 'auto') return 'auto';
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 1000) return value;
  throw new InvalidArgumentError('Worker options.prefetch', `must be 'auto' or an integer from 0 to 1,000, got ${describe(value)}`, "use 'auto' (default), 0 to turn it off, or a fixed reserve");
}
