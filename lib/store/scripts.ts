import { QUEUE_KEYS, type QueueKeys } from './keys.js';

/** Keys a script can declare besides the queue bundle. */
export type KeyName =
  | 'active'
  | 'hint'
  | 'idle'
  | 'job'
  | 'logs'
  | 'waitingChildren'
  | 'outbox'
  | 'deps'
  | 'results'
  | 'failures'
  | 'schedulers'
  | 'schedulerPrefix'
  | 'scheduler';

/** Keys named after one job (or, for `scheduler`, one scheduler): the caller passes its id. */
const JOB_KEYS = ['job', 'logs', 'deps', 'results', 'failures', 'scheduler'] as const;

/**
 * One descriptor per script: its file, whether it takes the queue bundle
 * (KEYS[1..17], ARGV[1..3], see QUEUE_KEYS), and its own keys after that.
 * The order lives here and in the script header only; test/unit/scripts.spec
 * fails when the two disagree. `rest` describes variadic keys at the end.
 */
export interface ScriptDescriptor {
  readonly file: string;
  readonly queue: boolean;
  readonly keys: readonly KeyName[];
  readonly rest?: string;
}

export const SCRIPTS = {
  add: { file: 'add', queue: true, keys: [], rest: 'two per job' },
  claim: { file: 'claim', queue: true, keys: [] },
  complete: { file: 'complete', queue: true, keys: ['job'] },
  fail: { file: 'fail', queue: true, keys: ['job'] },
  throttle: { file: 'throttle', queue: true, keys: ['job'] },
  release: { file: 'release', queue: true, keys: ['job'] },
  cancel: { file: 'cancel', queue: true, keys: ['job'] },
  promote: { file: 'promote', queue: true, keys: ['schedulers', 'schedulerPrefix'] },
  reap: { file: 'reap', queue: true, keys: [] },
  pause: { file: 'pause', queue: true, keys: [] },
  resume: { file: 'resume', queue: true, keys: [] },
  pauseNames: { file: 'pause-names', queue: true, keys: [] },
  resumeNames: { file: 'resume-names', queue: true, keys: [] },
  pauseGroup: { file: 'pause-group', queue: true, keys: [] },
  resumeGroup: { file: 'resume-group', queue: true, keys: [] },
  groupLimits: { file: 'group-limits', queue: true, keys: [] },
  configure: { file: 'configure', queue: true, keys: [] },
  counts: { file: 'counts', queue: true, keys: [] },
  extend: { file: 'extend', queue: false, keys: ['active'], rest: 'one job hash per lease' },
  progress: { file: 'progress', queue: false, keys: ['job'] },
  log: { file: 'log', queue: false, keys: ['job', 'logs'] },
  consumeHint: { file: 'consume-hint', queue: false, keys: ['hint', 'idle'] },
  // Flows (parent/child) and dead-letter operations.
  flowAdd: { file: 'flow-add', queue: true, keys: ['waitingChildren'], rest: 'two per node' },
  flowCommit: { file: 'flow-commit', queue: true, keys: ['waitingChildren'], rest: 'two per node' },
  childDone: { file: 'child-done', queue: true, keys: ['job', 'deps', 'results', 'failures', 'waitingChildren'] },
  outboxAck: { file: 'outbox-ack', queue: false, keys: ['outbox'] },
  redrive: { file: 'redrive', queue: true, keys: ['job', 'deps', 'waitingChildren'] },
  remove: { file: 'remove', queue: true, keys: ['job', 'deps'] },
  watch: { file: 'watch', queue: false, keys: ['job'] },
  // Schedulers (lib/engine/schedulers.ts); promote advances them.
  schedulerUpsert: { file: 'scheduler-upsert', queue: true, keys: ['schedulers', 'scheduler'] },
  schedulerRefill: { file: 'scheduler-refill', queue: true, keys: ['schedulers', 'scheduler'] },
  schedulerRemove: { file: 'scheduler-remove', queue: true, keys: ['schedulers', 'scheduler'] },
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
