import type { OptionHints } from './validation.js';

/**
 * The Spool counterpart of option names a user coming from BullMQ (and
 * ioredis) types, per kind of options object: an unknown key found in a
 * table says what to write instead of a did-you-mean. Checked against
 * BullMQ 5/6's JobsOptions, WorkerOptions, QueueOptions and KeepJobs.
 */

const CLIENT_HINT = "an ioredis option: Spool uses node-redis with settings a job queue needs (endless reconnects, no command timeout); for other client settings create a node-redis client yourself and pass it as { client }";
const STORE_HINT = "BullMQ's per-queue connection: Spool's Queue, Worker and QueueEvents share one store, e.g. new RedisStore({ url }), passed as { store }";
const PREFIX_HINT = "the prefix is the store's: new RedisStore({ url, prefix }) (QueueModule: connection: { url, prefix })";

/** RedisStore and QueueModule connection objects. */
export const CONNECTION_HINTS: OptionHints = {
  path: 'a Unix socket: create a node-redis client with socket: { path } and pass it as { client }',
  keyPrefix: 'did you mean "prefix"? (the first part of every key\'s hash tag)',
  sentinels: 'Sentinel is one object: { sentinel: { name, sentinels: [{ host, port }] } }',
  name: "the master's name of a Sentinel setup goes inside it: { sentinel: { name, sentinels } }",
  sentinelPassword: "the sentinels' own password goes inside sentinel: { sentinel: { name, sentinels, password } }",
  family: CLIENT_HINT,
  maxRetriesPerRequest: CLIENT_HINT,
  enableReadyCheck: CLIENT_HINT,
  enableOfflineQueue: CLIENT_HINT,
  retryStrategy: CLIENT_HINT,
  lazyConnect: CLIENT_HINT,
  connectTimeout: CLIENT_HINT,
  keepAlive: CLIENT_HINT,
};

const FLOW_HINT = "parents and children are added together with FlowProducer; a child's failurePolicy (e.g. failurePolicy: 'ignoreDependencyOnFailure') says what its failure does to the parent";
const SCHEDULER_HINT = 'repeating jobs are schedulers: queue.upsertScheduler(id, { every } or { cron }, { name, data, opts }) (docs/guide/schedulers.md)';
const DEDUP_HINT = (options: Readonly<Record<string, unknown>>): string => {
  const given = options.deduplication ?? options.debounce;
  const ttl = typeof given === 'object' && given !== null && 'ttl' in given ? ', ttl' : '';
  return `dedup: { key${ttl} } (BullMQ's deduplication.id is dedup.key)`;
};

/** Job options (add, defaultJobOptions, flow nodes' opts, schedulers' job opts). */
export const JOB_HINTS: OptionHints = {
  deduplication: DEDUP_HINT,
  debounce: DEDUP_HINT,
  repeat: SCHEDULER_HINT,
  repeatJobKey: SCHEDULER_HINT,
  parent: FLOW_HINT,
  failParentOnFailure: FLOW_HINT,
  continueParentOnFailure: FLOW_HINT,
  ignoreDependencyOnFailure: FLOW_HINT,
  removeDependencyOnFailure: FLOW_HINT,
  timestamp: 'Spool stamps createdAt itself; to start later use delay (ms) or runAt (a Date)',
  keepLogs: 'lines kept per job log are a Worker option here: keepLogs',
  sizeLimit: 'the largest payload is a Queue option here: maxPayloadBytes',
  telemetry: 'traces are on with @opentelemetry/api installed; tracing: false (a Queue option) turns them off',
};

/** removeOnComplete / removeOnFail objects: BullMQ's KeepJobs. */
export const RETENTION_HINTS: OptionHints = {
  limit: "BullMQ's limit (jobs removed per cleanup) has no counterpart: keep { count } and/or { age } (seconds)",
};

const JOB_OPTION_HINT = "a job option in Spool, not a Worker's: set it in the queue's defaultJobOptions or per add()";

/** Worker options (new Worker, `@Processor`, QueueModule workers). */
export const WORKER_HINTS: OptionHints = {
  connection: STORE_HINT,
  prefix: PREFIX_HINT,
  removeOnComplete: JOB_OPTION_HINT,
  removeOnFail: JOB_OPTION_HINT,
  settings: "settings.backoffStrategy is the Worker option backoffStrategy (with backoff: { type: 'custom' } on jobs)",
  drainDelay: 'idle workers wake on pub/sub; pollInterval (ms) is the fallback poll',
  skipStalledCheck: 'expired leases are always reaped; stalledInterval (ms) says how often',
  useWorkerThreads: "a handler module in worker threads: pass its path as the handler and sandbox: { runner: 'threads' } (docs/guide/workers.md#sandboxed-processors)",
  telemetry: 'traces are on with @opentelemetry/api installed; tracing: false turns them off',
  metrics: 'metrics are always kept: queue.getMetrics()',
};

/** Queue options (new Queue). */
export const QUEUE_HINTS: OptionHints = {
  connection: STORE_HINT,
  prefix: PREFIX_HINT,
  streams: 'the event stream length is a queue limit: queue.configure({ events: { maxLen } }) (registerQueue: limits: { events: { maxLen } })',
  telemetry: 'traces are on with @opentelemetry/api installed; tracing: false turns them off',
};

/** QueueEvents options. */
export const QUEUE_EVENTS_HINTS: OptionHints = {
  connection: STORE_HINT,
  prefix: PREFIX_HINT,
  lastEventId: 'did you mean "from"? (the event id to read after)',
  blockingTimeout: 'did you mean "blockMs"?',
};

/** QueueModule.forRoot options (BullModule.forRoot). */
export const MODULE_HINTS: OptionHints = {
  redis: "Bull's redis option: connection: { url: 'redis://host:6379' } (or { client })",
  prefix: "the prefix belongs to the connection: connection: { url, prefix }",
  sharedConnection: 'every queue, worker and event reader of a connection already shares its store',
};

/** registerQueue({ ... }) (BullModule.registerQueue). */
export const REGISTER_QUEUE_HINTS: OptionHints = {
  redis: "Bull's redis option: connection: { url: 'redis://host:6379' } (a connection of the queue's own) or the name of a forRoot connection",
  streams: 'limits: { events: { maxLen } }',
  configKey: 'connection: the name of a connection of QueueModule.forRoot({ connections })',
  processors: "a sandboxed processor names its module itself: @Processor('queue', { sandbox: { file } })",
  telemetry: 'traces are on with @opentelemetry/api installed; forRoot({ tracing: false }) turns them off',
};
