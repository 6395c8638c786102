import { BadRequestException, Logger } from '@nestjs/common';
import { InvalidArgumentError } from '../engine/errors.js';
import { QueueValidationError } from '../nest/errors.js';
import { ChildrenPendingError, JobNotFailedError, JobNotFinishedError, JobNotFoundError } from '../engine/flow-errors.js';
import type { Queue } from '../engine/queue.js';
import type { FinishedState } from '../engine/dead-letters.js';
import { jobs } from './views/format.js';

export const ACTIONS = ['redrive', 'cancel', 'promote', 'remove', 'purge', 'pause', 'resume', 'run-scheduler', 'pause-scheduler', 'resume-scheduler', 'remove-scheduler', 'pause-worker', 'resume-worker', 'add'] as const;
export type DashboardAction = (typeof ACTIONS)[number];

/** A parsed action request (JSON body posted by the page script). */
export interface ActionRequest {
  readonly action: DashboardAction;
  readonly ids?: readonly string[];
  readonly filter?: { readonly name?: string; readonly errorContains?: string };
  readonly state?: string;
  readonly names?: readonly string[];
  /** run-scheduler, remove-scheduler: the scheduler's id. */
  readonly scheduler?: string;
  /** pause-worker, resume-worker: the worker's id. */
  readonly worker?: string;
  /** add: the new job's name and its data as JSON text (the form's textarea). */
  readonly jobName?: string;
  readonly data?: string;
}

const MAX_DATA_CHARS = 256 * 1024;

/** A 400 whose body also lists every failed constraint, so the form can show them by field. */
function invalid(message: string, errors: readonly string[]): BadRequestException {
  return new BadRequestException({ statusCode: 400, message, errors });
}

/** The add form's data: JSON text that must parse to an object (a DTO, when registered, checks the rest). */
function parseData(text: string): object {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (err) {
    throw invalid('data is not valid JSON', [`data: ${(err as Error).message}`]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('data must be a JSON object', ['data: must be a JSON object, e.g. {"to": "ada@example.com"}']);
  return value;
}

const MAX_IDS = 1000;

function bad(message: string): BadRequestException {
  return new BadRequestException(message);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw bad('filter must be JSON of { name?, errorContains? }');
  }
}

/** Checks the body's shape; the engine checks the values (and answers with typed errors). */
export function parseAction(body: unknown): ActionRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('the body must be a JSON object { action, ids?, filter?, state?, names? }');
  const b = body as Record<string, unknown>;
  if (!ACTIONS.includes(b.action as DashboardAction)) throw bad(`action must be one of ${ACTIONS.join(', ')}`);
  const strings = (v: unknown, field: string): string[] | undefined => {
    if (v === undefined) return undefined;
    const list = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(list) || list.length === 0 || list.length > MAX_IDS || list.some((x) => typeof x !== 'string' || x.length === 0)) {
      throw bad(`${field} must be 1 to ${MAX_IDS} non-empty strings`);
    }
    return list as string[];
  };
  const ids = strings(b.ids, 'ids');
  const names = strings(b.names, 'names');
  let filter: ActionRequest['filter'];
  if (b.filter !== undefined) {
    const f = typeof b.filter === 'string' ? parseJson(b.filter) : b.filter;
    if (typeof f !== 'object' || f === null || Object.keys(f).some((k) => k !== 'name' && k !== 'errorContains')) throw bad('filter must be { name?, errorContains? }');
    filter = f as ActionRequest['filter'];
  }
  if (b.state !== undefined && typeof b.state !== 'string') throw bad('state must be a string');
  const action = b.action as DashboardAction;
  if (['redrive', 'cancel', 'promote', 'remove'].includes(action) && !ids && !filter) throw bad(`${action} needs ids or a filter`);
  if (action === 'remove' && !ids) throw bad('remove needs ids');
  if (['run-scheduler', 'pause-scheduler', 'resume-scheduler', 'remove-scheduler'].includes(action) && (typeof b.scheduler !== 'string' || b.scheduler.length === 0)) throw bad(`${action} needs scheduler: the scheduler's id`);
  const scheduler = typeof b.scheduler === 'string' ? b.scheduler : undefined;
  if ((action === 'pause-worker' || action === 'resume-worker') && (typeof b.worker !== 'string' || b.worker.length === 0)) throw bad(`${action} needs worker: the worker's id`);
  const worker = typeof b.worker === 'string' ? b.worker : undefined;
  if (action === 'add') {
    if (typeof b.jobName !== 'string' || b.jobName.trim().length === 0 || b.jobName.length > 256) throw invalid('add needs jobName: the new job\'s name', ['jobName: required, 1 to 256 characters']);
    if (typeof b.data !== 'string' || b.data.length > MAX_DATA_CHARS) throw invalid('add needs data: JSON text of an object', [`data: required, JSON text up to ${MAX_DATA_CHARS} characters`]);
    return { action, jobName: b.jobName.trim(), data: b.data };
  }
  return { action, ...(ids && { ids }), ...(names && { names }), ...(filter && { filter }), ...(typeof b.state === 'string' && { state: b.state }), ...(scheduler !== undefined && { scheduler }), ...(worker !== undefined && { worker }) };
}

/** Runs one action through the engine; resolves the sentence shown to the operator (and logged). */
export async function runAction(queue: Queue, a: ActionRequest): Promise<string> {
  const q = queue.name;
  try {
    switch (a.action) {
      case 'redrive':
        return `Redrove ${jobs(a.ids ? await queue.redrive(a.ids) : await queue.redrive({ filter: a.filter ?? {} }))} of ${q}`;
      case 'promote':
        return `Promoted ${jobs(await queue.promote(a.ids ?? { filter: { ...(a.filter?.name && { name: a.filter.name }) } }))} of ${q}`;
      case 'cancel': {
        const state = a.state === 'waiting' || a.state === 'delayed' ? a.state : undefined;
        if (!a.ids && !state) throw bad('cancel by filter needs state waiting or delayed');
        const n = a.ids ? await queue.cancel(a.ids) : await queue.cancel({ filter: { state: state!, ...(a.filter?.name && { name: a.filter.name }) } });
        return `Cancelled ${jobs(n)} of ${q} (active ones stop at their next check)`;
      }
      case 'remove': {
        let n = 0;
        for (const id of a.ids!) if (await queue.remove(id)) n++;
        return `Removed ${jobs(n)} of ${q}`;
      }
      case 'purge':
        return `Purged ${jobs(await queue.purge(a.state as FinishedState, { ...(a.filter?.name && { name: a.filter.name }) }))} of ${q}`;
      case 'pause':
        await queue.pause(a.names ? { names: a.names } : undefined);
        return a.names ? `Paused ${a.names.join(', ')} in ${q}` : `Paused ${q}`;
      case 'resume':
        await queue.resume(a.names ? { names: a.names } : undefined);
        return a.names ? `Resumed ${a.names.join(', ')} in ${q}` : `Resumed ${q}`;
      case 'run-scheduler': {
        const id = await queue.runSchedulerNow(a.scheduler!);
        if (id === null) throw bad(`no scheduler "${a.scheduler}" in ${q}`);
        return `Added job ${id} of scheduler ${a.scheduler} to ${q}`;
      }
      case 'pause-worker':
      case 'resume-worker': {
        const pause = a.action === 'pause-worker';
        if (!(await (pause ? queue.pauseWorker(a.worker!) : queue.resumeWorker(a.worker!)))) throw bad(`no live worker "${a.worker}" of ${q}`);
        return `Asked worker ${a.worker} of ${q} to ${pause ? 'pause' : 'resume'} (it does so at its next heartbeat, within 5 s)`;
      }
      case 'add': {
        // queue.add runs the DTO registered for this job name (QueueModule jobs / @OnJob dto) before writing.
        const job = await queue.add(a.jobName!, parseData(a.data!));
        return `Added job ${job.id} (${a.jobName}) to ${q}`;
      }
      case 'pause-scheduler':
        if (!(await queue.pauseScheduler(a.scheduler!))) throw bad(`no scheduler "${a.scheduler}" in ${q}`);
        return `Paused scheduler ${a.scheduler} of ${q}`;
      case 'resume-scheduler':
        if (!(await queue.resumeScheduler(a.scheduler!))) throw bad(`no scheduler "${a.scheduler}" in ${q}`);
        return `Resumed scheduler ${a.scheduler} of ${q}`;
      case 'remove-scheduler':
        if (!(await queue.removeScheduler(a.scheduler!))) throw bad(`no scheduler "${a.scheduler}" in ${q}`);
        return `Removed scheduler ${a.scheduler} of ${q}`;
    }
  } catch (err) {
    if (err instanceof QueueValidationError) throw invalid(`data does not match the DTO of "${err.jobName}"`, err.constraints);
    // Bad input and refused transitions (not finished, children pending...) come back as typed engine errors.
    const refused = [InvalidArgumentError, JobNotFinishedError, JobNotFailedError, JobNotFoundError, ChildrenPendingError];
    if (refused.some((type) => err instanceof type)) throw bad((err as Error).message);
    throw err;
  }
}

/** Who did it, when the guard put a user on the request. */
export function actorOf(user: unknown): string | undefined {
  if (user === undefined || user === null) return undefined;
  if (typeof user === 'string') return user;
  if (typeof user === 'object') {
    const u = user as Record<string, unknown>;
    for (const key of ['username', 'name', 'email', 'id', 'sub']) if (typeof u[key] === 'string' || typeof u[key] === 'number') return String(u[key]);
  }
  return 'an authenticated user';
}

export const auditLog = new Logger('SpoolDashboard');
