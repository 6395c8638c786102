import type { Command } from 'commander';
import { listQueues } from '../engine/list-queues.js';
import type { CountedMetrics, QueueMetrics } from '../engine/metrics.js';
import type { SchedulerInfo } from '../engine/schedulers.js';
import type { WorkerInfo } from '../store/worker-registry.js';
import type { Context } from './context.js';
import { CliError, UsageError } from './errors.js';
import { formatDuration, isoTime, relativeTime, table } from './format.js';
import { positiveInt } from './parse.js';
import type { Register } from './program.js';

/** On-call commands: workers across queues, schedulers (list, run-now, remove), metrics. */

const SCHEDULER_ACTIONS = ['list', 'run-now', 'pause', 'resume', 'remove'] as const;
type SchedulerAction = (typeof SCHEDULER_ACTIONS)[number];

function schedulerAction(value: string): SchedulerAction {
  const found = SCHEDULER_ACTIONS.find((a) => a === value);
  if (!found) throw new UsageError(`schedulers: action "${value}" is not one of ${SCHEDULER_ACTIONS.join(', ')}`);
  return found;
}

/** "cron 0 8 * * * (Europe/Paris)" or "every 5m". */
export function patternOf(s: SchedulerInfo): string {
  const r = s.repeat;
  if (r.cron !== undefined) return `cron ${r.cron}${r.tz ? ` (${r.tz})` : ''}`;
  return `every ${ms(r.every ?? 0)}`;
}

/** A span in ms for a person: 250ms, 30s, 5m, 2h (exact units when they divide). */
export function ms(n: number): string {
  if (n < 1000) return `${Math.round(n)}ms`;
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (n % size === 0) return `${n / size}${unit}`;
  }
  return `${(n / 1000).toFixed(1)}s`;
}

/** limit and endAt, with how far the scheduler got. */
export function boundsOf(s: SchedulerInfo): string {
  const parts = [s.repeat.limit !== undefined && `${s.count}/${s.repeat.limit} ticks`, s.repeat.endAt !== undefined && `until ${isoTime(s.repeat.endAt)}`].filter(Boolean);
  return parts.length > 0 ? parts.join(', ') : '-';
}

function schedulerRows(list: readonly SchedulerInfo[]): string {
  return table(
    ['scheduler', 'job', 'pattern', 'next run', 'last job', 'missed', 'ran', 'bounds'],
    list.map((s) => [s.id, s.job.name, patternOf(s), s.paused ? 'paused' : s.next === null ? 'ended' : relativeTime(s.next), s.lastJobId ?? '-', s.repeat.missed, `${s.count}${s.skipped ? ` (+${s.skipped} skipped)` : ''}`, boundsOf(s)]),
  );
}

function workerRows(rows: readonly (WorkerInfo & { queue: string })[], withQueue: boolean): string {
  return table(
    [...(withQueue ? ['queue'] : []), 'worker', 'host', 'pid', 'held', 'started', 'seen'],
    rows.map((w) => [...(withQueue ? [w.queue] : []), w.id, w.hostname, String(w.pid), `${w.running}/${w.concurrency}${w.paused ? ' paused' : ''}`, relativeTime(w.startedAt), relativeTime(w.seenAt)]),
  );
}

/** Metrics as JSON: the per-name maps become objects. */
export function metricsJson(m: QueueMetrics): unknown {
  const counted = (c: CountedMetrics & { byName?: ReadonlyMap<string, CountedMetrics> }): unknown => ({ ...c, ...(c.byName && { byName: Object.fromEntries(c.byName) }) });
  return { ...m, minutes: m.minutes.map(counted), lastHour: counted(m.lastHour) };
}

function durations(c: CountedMetrics): string {
  return c.duration ? `p50 ${ms(c.duration.p50Ms)}, p90 ${ms(c.duration.p90Ms)}, p99 ${ms(c.duration.p99Ms)} (${c.duration.count} measured)` : 'none measured';
}

export function metricsText(m: QueueMetrics, minutes: number): string {
  const h = m.lastHour;
  const summary = [
    `queue ${m.queue} at ${isoTime(m.at)}`,
    `waiting ${m.counts.waiting}, active ${m.counts.active}, delayed ${m.counts.delayed}, failed ${m.counts.failed}`,
    `oldest waiting ${formatDuration(m.oldestWaitingMs)}, delayed lag ${formatDuration(m.delayedLagMs)}`,
    `last hour: ${h.completed} completed, ${h.failed} failed attempts (${h.deadLettered} dead-lettered, ${h.retried} retried), ${h.stalled} stalled`,
    `handler duration: ${durations(h)}`,
  ];
  const recent = m.minutes.slice(-minutes);
  // The gauges are one sample a minute, taken by a running worker's heartbeat: '-' where none ran.
  const sample = (v: number | null): string => (v === null ? '-' : v < 1000 ? ms(v) : formatDuration(v));
  const rows = recent.map((x) => [isoTime(x.at).slice(11, 16), x.completed, x.failed, x.deadLettered, x.duration ? ms(x.duration.p50Ms) : '-', x.duration ? ms(x.duration.p99Ms) : '-', sample(x.oldestWaitingMs), sample(x.delayedLagMs)]);
  return `${summary.join('\n')}\n\nper minute (UTC, the last one still running; oldest waiting and delayed lag sampled once a minute by a running worker, '-': no sample):\n${table(['minute', 'completed', 'failed attempts', 'dead', 'p50', 'p99', 'oldest waiting', 'delayed lag'], rows)}`;
}

async function schedulers(ctx: Context, cmd: Command): Promise<void> {
  const [name, act, id] = cmd.processedArgs as [string, SchedulerAction | undefined, string | undefined];
  const action = act ?? 'list';
  const yes = cmd.opts<{ yes?: boolean }>().yes;
  const queue = await ctx.queue(name);
  if (action === 'list') {
    if (id !== undefined) throw new UsageError('schedulers list takes no id: spool schedulers <queue>');
    const list = await queue.getSchedulers();
    ctx.result(list, list.length > 0 ? schedulerRows(list) : `queue "${name}" has no scheduler`);
    return;
  }
  if (id === undefined) throw new UsageError(`schedulers ${action} needs a scheduler id: spool schedulers ${name} ${action} <id>`);
  const known = await queue.getScheduler(id);
  if (!known) throw new CliError(`no scheduler "${id}" in queue "${name}": ${(await queue.getSchedulers()).map((s) => s.id).join(', ') || 'it has none'}`);
  if (action === 'run-now') {
    await ctx.confirm(`add one "${known.job.name}" job of scheduler "${id}" to ${name} now`, yes);
    const jobId = await queue.runSchedulerNow(id);
    if (jobId === null) throw new CliError(`scheduler "${id}" of queue "${name}" was removed meanwhile`);
    ctx.result({ scheduler: id, jobId }, `added job ${jobId} (scheduler "${id}" runs on: next tick ${known.next === null ? 'none' : relativeTime(known.next)})`);
    return;
  }
  if (action === 'pause' || action === 'resume') {
    if (action === 'pause') await ctx.confirm(`pause scheduler "${id}" of ${name} (its pending tick is dropped until you resume it)`, yes);
    await (action === 'pause' ? queue.pauseScheduler(id) : queue.resumeScheduler(id));
    const now = await queue.getScheduler(id);
    ctx.result({ scheduler: id, paused: now?.paused === true, next: now?.next ?? null }, `${action === 'pause' ? 'paused' : 'resumed'} scheduler "${id}" of ${name}${now && !now.paused && now.next !== null ? `: next tick ${relativeTime(now.next)}` : ''}`);
    return;
  }
  await ctx.confirm(`remove scheduler "${id}" of ${name} (${patternOf(known)}) and its pending tick`, yes);
  const removed = await queue.removeScheduler(id);
  ctx.result({ scheduler: id, removed }, removed ? `removed scheduler "${id}" of ${name}` : `scheduler "${id}" was already gone`);
}

export const registerOps: Register = (program, action) => {
  program
    .command('workers')
    .description('the workers serving one queue, or every queue: host, pid, jobs held / concurrency (and paused), started, last heartbeat')
    .argument('[queue]', 'one queue (default: every queue under the prefix)')
    .action(
      action(async (ctx, cmd) => {
        const [name] = cmd.processedArgs as [string | undefined];
        const names = name === undefined ? await listQueues(ctx.store) : [name];
        const rows = (await Promise.all(names.map(async (q) => (await (await ctx.queueNamed(q)).getWorkers()).map((w) => ({ ...w, queue: q }))))).flat();
        const none = name === undefined ? `no worker of any queue under prefix "${ctx.options.prefix}" sent a heartbeat in the last 15 s` : `no worker of queue "${name}" sent a heartbeat in the last 15 s`;
        // One queue: the worker list as the engine has it (no queue field), as before.
        const json = name === undefined ? rows : rows.map(({ queue: _q, ...w }) => w);
        ctx.result(json, rows.length > 0 ? workerRows(rows, name === undefined) : none);
      }),
    );

  program
    .command('schedulers')
    .description("a queue's schedulers (pattern, next run, last job, missed policy, bounds); run one now, pause, resume or remove one")
    .argument('<queue>')
    .argument('[action]', 'list (default), run-now, pause, resume or remove', schedulerAction)
    .argument('[id]', 'the scheduler, for run-now and remove')
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
    .addHelpText('after', '\nExamples:\n  spool schedulers emails\n  spool schedulers emails run-now digest --yes\n  spool schedulers emails pause digest --yes\n  spool schedulers emails remove digest')
    .action(action(schedulers));

  program
    .command('metrics')
    .description('throughput, failures, handler durations, oldest waiting and delayed lag of a queue over the last hour')
    .argument('<queue>')
    .option('--minutes <n>', 'minutes shown one per row (1 to 60)', positiveInt(60), 15)
    .action(
      action(async (ctx, cmd) => {
        const [name] = cmd.processedArgs as [string];
        const metrics = await (await ctx.queue(name)).getMetrics();
        ctx.result(metricsJson(metrics), metricsText(metrics, cmd.opts<{ minutes: number }>().minutes));
      }),
    );
};
