import type { SchedulerJob, SchedulerJobOptions, SchedulerRepeat } from '../engine/scheduler-spec.js';
import type { Retention } from '../engine/options.js';
import type { BullSource } from './bullmq-source.js';

/** One BullMQ job scheduler or legacy repeatable job, as Queue.upsertScheduler() takes it. */
export interface SchedulerPlan {
  /** BullMQ's scheduler id; a legacy repeatable's key becomes `repeat:<key>`. */
  readonly id: string;
  readonly repeat: SchedulerRepeat;
  readonly job: SchedulerJob;
  readonly notes: string[];
  /** Kind, for the report. */
  readonly legacy: boolean;
}

export type SchedulerReading = { readonly key: string; readonly plan: SchedulerPlan } | { readonly key: string; readonly skip: string };

const TEMPLATE_READ = new Set(['attempts', 'backoff', 'priority', 'lifo', 'removeOnComplete', 'removeOnFail', 'repeat', 'jobId', 'delay', 'timestamp', 'prevMillis', 'repeatJobKey']);

function json(raw: string | undefined): unknown {
  try {
    return raw === undefined ? undefined : (JSON.parse(raw) as unknown);
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

const num = (value: unknown): number | undefined => {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** The options of the job every tick adds: what Spool has a meaning for; the rest listed. */
function templateOptions(opts: Record<string, unknown>, notes: string[]): SchedulerJobOptions {
  for (const key of Object.keys(opts)) if (!TEMPLATE_READ.has(key)) notes.push(`template option ${key} not carried`);
  const keep = (v: unknown): Retention | undefined => (typeof v === 'boolean' || typeof v === 'number' || (v !== null && typeof v === 'object') ? (v as Retention) : undefined);
  const backoff = opts.backoff;
  return {
    ...(typeof opts.attempts === 'number' && opts.attempts > 1 && { attempts: Math.floor(opts.attempts) }),
    ...(typeof backoff === 'number' && { backoff }),
    ...(backoff !== null && typeof backoff === 'object' && { backoff: backoff as SchedulerJobOptions['backoff'] }),
    ...(typeof opts.priority === 'number' && opts.priority > 0 && { priority: opts.priority }),
    ...(opts.lifo === true && { lifo: true }),
    removeOnComplete: keep(opts.removeOnComplete) ?? false,
    removeOnFail: keep(opts.removeOnFail) ?? false,
  };
}

/**
 * When Spool's first tick falls: BullMQ's pending one (`next`) while it is
 * ahead. Once due, the importer brings that tick's job over as a job, so
 * the scheduler goes on after now, without a tick for the past ('skip', as
 * BullMQ computes its next run from now).
 */
function firstTick(next: number, every: number | undefined, now: number): number {
  if (next > now) return next;
  return every ? next + every * Math.ceil((now + 1 - next) / every) : now + 1;
}

/**
 * Reads the queue's job schedulers (BullMQ 5.16+ and 6: a hash with `ic`,
 * its template's data and opts) and legacy repeatable jobs (BullMQ 5: a
 * hash of name, pattern or every, tz, endDate, or only the key
 * `name:jobId:endDate:tz:pattern`; the template is the pending tick job).
 */
export async function readSchedulers(source: BullSource, now: number): Promise<SchedulerReading[]> {
  const out: SchedulerReading[] = [];
  for (const { key, next } of await source.repeats()) {
    const hash = await source.repeatHash(key);
    const legacy = hash.ic === undefined && hash.data === undefined && hash.opts === undefined;
    const notes: string[] = [];
    let name = hash.name;
    let pattern = hash.pattern;
    let every = num(hash.every);
    let tz = hash.tz;
    let endDate = num(hash.endDate);
    let limit = num(hash.limit);
    const startDate = num(hash.startDate);
    let data: unknown = json(hash.data) ?? {};
    let opts = record(json(hash.opts));
    // The pending tick is run already when it is due (imported as a job): it counts against the limit.
    let used = (num(hash.ic) ?? 1) - (next > now ? 1 : 0);
    if (legacy) {
      if (Object.keys(hash).length === 0) {
        // The oldest layout: everything is in the key.
        const parts = key.split(':');
        name = parts[0];
        endDate = num(parts[2]);
        tz = parts[3] || undefined;
        const tail = parts.slice(4).join(':');
        if (/^\d+$/.test(tail)) every = Number(tail);
        else pattern = tail || undefined;
      }
      const [tick] = await source.readJobs([`repeat:${key}:${next}`]);
      if (!tick) {
        out.push({ key, skip: 'legacy repeatable job without its pending job (its template): nothing to copy' });
        continue;
      }
      data = json(tick.hash.data) ?? {};
      opts = record(json(tick.hash.opts));
      const repeat = record(opts.repeat);
      limit = num(repeat.limit);
      used = (num(repeat.count) ?? 1) - (next > now ? 1 : 0);
    }
    if (!name || (pattern === undefined && every === undefined)) {
      out.push({ key, skip: 'neither a pattern nor an every interval found' });
      continue;
    }
    if (pattern !== undefined && every !== undefined) every = undefined;
    if (num(hash.offset) && every === undefined) notes.push(`offset ${hash.offset} not carried (cron patterns fix their own times)`);
    if (endDate !== undefined && endDate < now) {
      out.push({ key, skip: `ended at ${new Date(endDate).toISOString()}` });
      continue;
    }
    if (limit !== undefined && limit - used <= 0) {
      out.push({ key, skip: `limit ${limit} reached` });
      continue;
    }
    const startAt = Math.max(startDate ?? 0, firstTick(next, every, now));
    const repeat: SchedulerRepeat = {
      ...(pattern !== undefined ? { cron: pattern, ...(tz && { tz }) } : { every }),
      startAt,
      ...(endDate !== undefined && { endAt: endDate }),
      ...(limit !== undefined && { limit: limit - used }),
      missed: 'skip',
    };
    if (limit !== undefined && used > 0) notes.push(`limit ${limit} becomes ${limit - used}: ${used} run(s) made in BullMQ`);
    out.push({
      key,
      plan: { id: legacy ? `repeat:${key}` : key, repeat, job: { name, data, opts: templateOptions(opts, notes) }, notes, legacy },
    });
  }
  return out;
}
