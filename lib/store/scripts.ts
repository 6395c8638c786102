import { QUEUE_KEYS, type QueueKeys } from './keys.js';

/** Keys a script can declare besides the queue bundle. */
export type KeyName =
  | 'active'
  | 'hint'
  | 'idle'
  | 'job'
  | 'logs'
  | 'meta'
  | 'jobPrefix'
  | 'waitingChildren'
  | 'outbox'
  | 'deps'
  | 'results'
  | 'failures'
  | 'schedulers'
  | 'schedulerPrefix'
  | 'scheduler'
  | 'workers'
  | 'workersSeen'
  | 'imported';

/** Keys named after one job (or, for `scheduler`, one scheduler): the caller passes its id. */
const JOB_KEYS = ['job', 'logs', 'deps', 'results', 'failures', 'scheduler'] as const;

/**
 * One descriptor per script: its file, whether it takes the queue bundle
 * (KEYS[1..17], ARGV[1..3], see QUEUE_KEYS), and its own keys after that.
 * The order of KEYS and ARGV lives here and in the script header only;
 * test/unit/scripts.spec fails when the two disagree. `rest` describes variadic keys at the end.
 */
export interface ScriptDescriptor {
  readonly file: string;
  readonly queue: boolean;
  readonly keys: readonly KeyName[];
  readonly rest?: string;
  /** The script's own ARGV in order (after ARGV[1..3] for queue scripts): the first words of each header line. */
  readonly argv: readonly string[];
  /** Variadic ARGV at the end, as the header names them. */
  readonly argvRest?: string;
}

export const SCRIPTS = {
  add: { file: 'add', queue: true, keys: [], argv: ['number of jobs'], argvRest: '5 per job' },
  claim: { file: 'claim', queue: true, keys: [], argv: ['worker id', 'count', 'lease duration ms', 'woken', 'push slots'], argvRest: 'name, room pairs' },
  complete: { file: 'complete', queue: true, keys: [], argv: ['worker id', 'count', 'lease duration ms', 'push slots', 'number of jobs'], argvRest: '4 per job' },
  pushOff: { file: 'push-off', queue: true, keys: [], argv: ['worker id'] },
  fail: { file: 'fail', queue: true, keys: ['job'], argv: ['job id', 'lease token', 'retry delay ms', 'reason', 'error message', 'error stack', 'error code'] },
  throttle: { file: 'throttle', queue: true, keys: ['job'], argv: ['job id', 'lease token', 'retry after', 'whole queue'] },
  release: { file: 'release', queue: true, keys: ['job'], argv: ['job id', 'lease token'] },
  cancel: { file: 'cancel', queue: true, keys: ['job'], argv: ['job id'] },
  cancelWaiting: { file: 'cancel-waiting', queue: true, keys: [], argv: [], argvRest: 'job ids' },
  promote: { file: 'promote', queue: true, keys: ['schedulers', 'schedulerPrefix'], argv: ['limit'] },
  reap: { file: 'reap', queue: true, keys: [], argv: ['maxStalledCount', 'limit'] },
  pause: { file: 'pause', queue: true, keys: [], argv: [] },
  resume: { file: 'resume', queue: true, keys: [], argv: [] },
  pauseNames: { file: 'pause-names', queue: true, keys: [], argv: [], argvRest: 'job names' },
  resumeNames: { file: 'resume-names', queue: true, keys: [], argv: ['limit'], argvRest: 'job names' },
  pauseGroup: { file: 'pause-group', queue: true, keys: [], argv: ['group id'] },
  resumeGroup: { file: 'resume-group', queue: true, keys: [], argv: ['group id'] },
  groupLimits: { file: 'group-limits', queue: true, keys: [], argv: ['group id', 'concurrency cap', 'rate limit'] },
  configure: { file: 'configure', queue: true, keys: [], argv: [], argvRest: 'pairs: field, value' },
  counts: { file: 'counts', queue: true, keys: [], argv: [] },
  metrics: { file: 'metrics', queue: true, keys: [], argv: [] },
  gauges: { file: 'gauges', queue: true, keys: [], argv: [] },
  waitingIds: { file: 'waiting-ids', queue: true, keys: [], argv: ['start position', 'end position'] },
  extend: { file: 'extend', queue: false, keys: ['active'], rest: 'one job hash per lease', argv: ['lease duration ms'], argvRest: 'pairs: job id, lease token' },
  progress: { file: 'progress', queue: false, keys: ['job'], argv: ['lease token', 'progress'] },
  updateData: { file: 'update-data', queue: false, keys: ['job'], argv: ['lease token', 'data'] },
  workerBeat: { file: 'worker-beat', queue: false, keys: ['workers', 'workersSeen'], argv: ['worker id', 'info', 'stale ms'] },
  workerList: { file: 'worker-list', queue: false, keys: ['workers'], argv: [] },
  log: { file: 'log', queue: false, keys: ['job', 'logs', 'meta'], argv: ['lease token', 'line', 'keep'] },
  // Flows (parent/child) and dead-letter operations.
  flowAdd: { file: 'flow-add', queue: true, keys: ['waitingChildren'], rest: 'two per node', argv: ['flow token', 'nodes', 'intent'] },
  flowCommit: { file: 'flow-commit', queue: true, keys: ['waitingChildren'], rest: 'two per node', argv: ['decision', 'flow token'], argvRest: 'node ids' },
  childDone: { file: 'child-done', queue: true, keys: ['job', 'deps', 'results', 'failures', 'waitingChildren'], argv: ['the notification'] },
  outboxAck: { file: 'outbox-ack', queue: false, keys: ['outbox'], argv: ['child id', 'the notification'] },
  redrive: { file: 'redrive', queue: true, keys: ['job', 'deps', 'waitingChildren'], argv: ['job id'] },
  remove: { file: 'remove', queue: true, keys: ['job', 'deps'], argv: ['job id'] },
  watch: { file: 'watch', queue: false, keys: ['job'], argv: [] },
  reserveIds: { file: 'reserve-ids', queue: false, keys: ['meta', 'jobPrefix'], argv: ['count', 'taken id'] },
  // Schedulers (lib/engine/schedulers.ts); promote advances them.
  schedulerUpsert: {
    file: 'scheduler-upsert', queue: true, keys: ['schedulers', 'scheduler'],
    argv: ['scheduler id', 'spec', 'kind', 'every ms', 'anchor ms', 'endAt ms', 'limit', 'missed policy', 'tick job template', 'cron'],
  },
  schedulerRefill: { file: 'scheduler-refill', queue: true, keys: ['schedulers', 'scheduler'], argv: ['scheduler id', 'spec', 'tick times'] },
  schedulerRemove: { file: 'scheduler-remove', queue: true, keys: ['schedulers', 'scheduler'], argv: ['scheduler id'] },
  schedulerPause: { file: 'scheduler-pause', queue: true, keys: ['schedulers', 'scheduler'], argv: ['scheduler id'] },
  schedulerResume: { file: 'scheduler-resume', queue: true, keys: ['schedulers', 'scheduler'], argv: ['scheduler id'] },
  // Operations on many jobs (lib/engine/dead-letters.ts): pages, bulk moves, purge.
  page: {
    file: 'page', queue: true, keys: [], rest: 'the index to page',
    argv: ['order', 'cursor member', 'cursor score', 'min score', 'max score', 'limit', 'budget', 'error text', 'job name', "'1'"],
  },
  purge: {
    file: 'purge', queue: true, keys: [], rest: 'the index to walk',
    argv: ['state', 'max finishedAt', 'job name', 'batch', 'budget', 'cursor'],
  },
  redriveBulk: { file: 'redrive-bulk', queue: true, keys: ['waitingChildren'], rest: 'two per job', argv: ['reset attempts', 'delay ms'], argvRest: 'job ids' },
  promoteJobs: { file: 'promote-jobs', queue: true, keys: [], argv: [], argvRest: 'job ids' },
  // Job handles (lib/engine/job.ts) and queue housekeeping (lib/engine/queue-ops.ts).
  removeJob: { file: 'remove-job', queue: true, keys: ['job', 'deps'], argv: ['job id'] },
  promoteJob: { file: 'promote-job', queue: true, keys: ['job'], argv: ['job id'] },
  changeDelay: { file: 'change-delay', queue: true, keys: ['job'], argv: ['job id', 'delay ms'] },
  changePriority: { file: 'change-priority', queue: true, keys: ['job'], argv: ['job id', 'priority', 'lifo'] },
  setData: { file: 'set-data', queue: false, keys: ['job'], argv: ['data'] },
  setProgress: { file: 'set-progress', queue: false, keys: ['job'], argv: ['progress'] },
  drain: { file: 'drain', queue: true, keys: [], argv: ['delayed', 'batch', 'group cursor'] },
  obliterate: { file: 'obliterate', queue: true, keys: [], argv: ['force'] },
  // Jobs brought in from another queue system with their history (lib/migrate).
  importJobs: { file: 'import', queue: true, keys: ['waitingChildren', 'imported'], argv: ['jobs'] },
} as const satisfies Record<string, ScriptDescriptor>;

export type ScriptName = keyof typeof SCRIPTS;

/** The KEYS of a script for one queue (and one job, for job/logs keys), variadic ones excluded. */
export function fixedKeys(descriptor: ScriptDescriptor, keys: QueueKeys, jobId?: string): string[] {
  const own = descriptor.keys.map((name) => {
    if ((JOB_KEYS as readonly string[]).includes(name)) {
      if (jobId === undefined) throw new Error(`script ${descriptor.file} declares a ${name} key but no job id was given`);
      return keys[name as (typeof JOB_KEYS)[number]](jobId);
    }
    return keys[name as Exclude<KeyName, (typeof JOB_KEYS)[number]>];
  });
  return descriptor.queue ? [...QUEUE_KEYS.map((name) => keys[name]), ...own] : own;
}
