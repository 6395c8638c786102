import type { QueueKeys } from './keys.js';
import type { RedisClientLike } from './redis-client.js';
import { list, int, str, state, type RawReply } from './reply-values.js';
import type { ScriptName } from './scripts.js';
import type { DrainQuery, DrainStep, JobChange, JobChangeOutcome } from './job-changes.js';
import type { JobState } from './store.js';

/** How RedisStore runs a script for a queue (and one job's keys). */
export type RunJobScript = (name: ScriptName, queue: string, args: readonly (string | number)[], jobId?: string) => Promise<RawReply>;

/** The script of each change (lua/, one transition each) and its arguments after the queue bundle. */
function scriptOf(id: string, change: JobChange): [ScriptName, (string | number)[]] {
  switch (change.kind) {
    case 'remove':
      return ['removeJob', [id]];
    case 'promote':
      return ['promoteJob', [id]];
    case 'delay':
      return ['changeDelay', [id, change.delay]];
    case 'priority':
      return ['changePriority', [id, change.priority, change.lifo ? '1' : '0']];
    case 'data':
      return ['setData', [change.data]];
    case 'progress':
      return ['setProgress', [change.progress]];
  }
}

/** Every change script answers {code, state[, pending]}: 1 changed, 2 refused, 3 children pending, 4 flow child, 0 unknown. */
export function decodeChange(script: string, reply: RawReply): JobChangeOutcome {
  const r = list(script, reply);
  const code = int(script, r[0]);
  if (code === 0) return { status: 'unknown' };
  const at = state(script, str(r[1]));
  switch (code) {
    case 1:
      return { status: 'changed', state: at };
    case 3:
      return { status: 'children-pending', state: at, pending: int(script, r[2]) };
    case 4:
      return { status: 'flow-child', state: at };
    default:
      return { status: 'refused', state: at };
  }
}

export async function changeJob(run: RunJobScript, queue: string, id: string, change: JobChange): Promise<JobChangeOutcome> {
  const [script, args] = scriptOf(id, change);
  return decodeChange(script, await run(script, queue, args, id));
}

export async function readState(client: RedisClientLike, k: QueueKeys, id: string): Promise<JobState | null> {
  const reply = (await client.sendCommand(['HGET', k.job(id), 'state'])) as RawReply;
  return reply == null ? null : state('HGET', str(reply));
}

/** lua/drain.lua: one bounded step; `children` are the flow children it cancelled (their parents are told by the caller). */
export async function drainStep(run: RunJobScript, queue: string, q: DrainQuery): Promise<DrainStep & { readonly children: string[] }> {
  const r = list('drain', await run('drain', queue, [q.delayed ? '1' : '0', q.batch, q.cursor || '0']));
  return { removed: int('drain', r[0]), done: int('drain', r[1]) === 1, cursor: str(r[2]), children: r.slice(3).map(str) };
}

/** lua/obliterate.lua: go on (1), or refused with the active jobs' count. */
export async function obliterateBegin(run: RunJobScript, queue: string, force: boolean): Promise<number | null> {
  const r = list('obliterate', await run('obliterate', queue, [force ? '1' : '0']));
  return int('obliterate', r[0]) === 1 ? null : int('obliterate', r[1]);
}
