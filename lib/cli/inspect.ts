import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { listQueues } from '../engine/list-queues.js';
import { Queue } from '../engine/queue.js';
import type { Job } from '../engine/job.js';
import type { JobCounts, JobState } from '../store/store.js';
import type { Context } from './context.js';
import { progress } from './context.js';
import { CliError, UsageError } from './errors.js';
import { JOB_HEAD, fields, isoTime, jobJson, jobRow, pretty, relativeTime, table } from './format.js';
import { positiveInt, state } from './parse.js';
import type { Register } from './program.js';

/** Read-only commands: queues, counts, list, show, export. */

const COUNT_COLUMNS: readonly (keyof JobCounts)[] = ['waiting', 'paused', 'delayed', 'active', 'completed', 'failed', 'cancelled', 'waiting-children'];

export interface QueueCounts {
  readonly queue: string;
  readonly paused: boolean;
  readonly counts: JobCounts;
}

export async function readCounts(ctx: Context, names: readonly string[]): Promise<QueueCounts[]> {
  return Promise.all(
    names.map(async (name) => {
      const queue = await ctx.queueNamed(name);
      const [counts, paused] = await Promise.all([queue.getCounts(), queue.isPaused()]);
      return { queue: name, paused, counts };
    }),
  );
}

export function countsTable(rows: readonly QueueCounts[]): string {
  return table(
    ['queue', 'status', ...COUNT_COLUMNS.map((c) => (c === 'paused' ? 'held' : c === 'waiting-children' ? 'children' : c))],
    rows.map((r) => [r.queue, r.paused ? 'paused' : 'running', ...COUNT_COLUMNS.map((c) => r.counts[c])]),
  );
}

export function countsJson(rows: readonly QueueCounts[]): unknown {
  return rows.map((r) => ({ queue: r.queue, paused: r.paused, counts: r.counts }));
}

async function writeLine(out: NodeJS.WritableStream, line: string): Promise<void> {
  if (!out.write(line)) await once(out, 'drain');
}

/** Jobs of a state other than failed, oldest first: `cursor` jobs skipped, then up to `limit`. */
async function listOther(queue: Queue, st: JobState, name: string | undefined, limit: number, offset: number): Promise<{ jobs: Job[]; cursor: string | null }> {
  const jobs: Job[] = [];
  let seen = 0;
  for await (const job of queue.exportJobs(st, name === undefined ? {} : { name })) {
    if (seen++ < offset) continue;
    if (jobs.length === limit) return { jobs, cursor: String(offset + limit) };
    jobs.push(job);
  }
  return { jobs, cursor: null };
}

export const registerInspect: Register = (program, action) => {
  program
    .command('queues')
    .description('list the queues under the prefix (any queue with jobs or settings)')
    .action(
      action(async (ctx) => {
        const names = await listQueues(ctx.store);
        ctx.result(names, names.length > 0 ? names.join('\n') : `no queues under prefix "${ctx.options.prefix}"`);
      }),
    );

  program
    .command('counts')
    .description('jobs per state, for one queue or all of them')
    .argument('[queue]', 'one queue (default: every queue)')
    .action(
      action(async (ctx, cmd) => {
        const [name] = cmd.processedArgs as [string | undefined];
        const names = name === undefined ? await listQueues(ctx.store) : [(await ctx.queue(name)).name];
        const rows = await readCounts(ctx, names);
        if (name !== undefined && ctx.json) return ctx.result((countsJson(rows) as unknown[])[0], '');
        ctx.result(countsJson(rows), rows.length > 0 ? countsTable(rows) : `no queues under prefix "${ctx.options.prefix}"`);
      }),
    );

  program
    .command('list')
    .description('jobs in a state: failed ones newest first, the others oldest first, a page at a time')
    .argument('<queue>')
    .argument('<state>', 'waiting, delayed, active, completed, failed, cancelled or waiting-children', state)
    .option('--name <name>', 'only jobs of this name')
    .option('--reason <reason>', 'failed only: why they died (error, stalled, timeout, validation, ...)')
    .option('--limit <n>', 'jobs per page (1 to 1,000)', positiveInt(1000), 20)
    .option('--cursor <cursor>', 'the cursor printed under the previous page')
    .action(
      action(async (ctx, cmd) => {
        const [name, st] = cmd.processedArgs as [string, JobState];
        const o = cmd.opts<{ name?: string; reason?: string; limit: number; cursor?: string }>();
        const queue = await ctx.queue(name);
        let page: { jobs: Job[]; cursor: string | null };
        if (st === 'failed') {
          page = await queue.getFailed({ name: o.name, reason: o.reason, limit: o.limit, cursor: o.cursor });
        } else {
          if (o.reason !== undefined) throw new UsageError(`--reason applies to failed jobs, not ${st}`);
          const offset = o.cursor === undefined ? 0 : Number(o.cursor);
          if (!Number.isSafeInteger(offset) || offset < 0) throw new UsageError(`--cursor "${o.cursor}" is not a cursor of ${st} jobs: use the one printed under the previous page`);
          page = await listOther(queue, st, o.name, o.limit, offset);
        }
        const more = page.cursor === null ? '' : `\nmore: spool list ${name} ${st} --cursor ${page.cursor}${o.limit === 20 ? '' : ` --limit ${o.limit}`}`;
        ctx.result(
          { jobs: page.jobs.map(jobJson), cursor: page.cursor },
          page.jobs.length === 0 ? `no ${st} jobs${o.name ? ` named "${o.name}"` : ''} in ${name}` : `${table(JOB_HEAD, page.jobs.map(jobRow))}${more}`,
        );
      }),
    );

  program
    .command('show')
    .description('one job: state, options, data, result or error with its stack, logs')
    .argument('<queue>')
    .argument('<id>')
    .action(
      action(async (ctx, cmd) => {
        const [name, id] = cmd.processedArgs as [string, string];
        const queue = await ctx.queue(name);
        const job = await queue.getJob(id);
        if (!job) throw new CliError(`no job "${id}" in queue "${name}" (never added, or removed by retention or purge)`);
        const logs = await queue.getLogs(id);
        const rows: [string, string][] = [
          ['id', job.id],
          ['name', job.name],
          ['state', job.state + (job.cancelRequested ? ' (cancel requested)' : '')],
          ['attempts', `${job.attempt} of ${job.maxAttempts}${job.stalled ? `, stalled ${job.stalled}x` : ''}`],
          ['created', `${isoTime(job.createdAt)} (${relativeTime(job.createdAt)})`],
          ...(job.runAt ? [['run at', `${isoTime(job.runAt)} (${relativeTime(job.runAt)})`] as [string, string]] : []),
          ...(job.startedAt ? [['started', isoTime(job.startedAt)] as [string, string]] : []),
          ...(job.finishedAt ? [['finished', `${isoTime(job.finishedAt)} (${relativeTime(job.finishedAt)})`] as [string, string]] : []),
          ...(job.group ? [['group', job.group] as [string, string]] : []),
          ...(job.parent ? [['parent', `${job.parent.queue} ${job.parent.id}`] as [string, string]] : []),
          ...(job.corruption ? [['corrupt', job.corruption] as [string, string]] : []),
        ];
        const sections = [fields(rows), `data:\n${pretty(job.data)}`, `options:\n${pretty(job.opts)}`];
        if (job.progress !== undefined) sections.push(`progress:\n${pretty(job.progress)}`);
        if (job.result !== undefined) sections.push(`result:\n${pretty(job.result)}`);
        if (job.error) sections.push(`error (${job.error.reason ?? 'error'}, ${job.error.code}):\n${job.error.stack || job.error.message}`);
        if (logs.length > 0) sections.push(`logs:\n${logs.join('\n')}`);
        ctx.result({ ...jobJson(job), logs }, sections.join('\n\n'));
      }),
    );

  program
    .command('export')
    .description('every job in a state as NDJSON (one JSON object per line), oldest first, to stdout or a file')
    .argument('<queue>')
    .argument('<state>', 'waiting, delayed, active, completed, failed, cancelled or waiting-children', state)
    .option('--name <name>', 'only jobs of this name')
    .option('--reason <reason>', 'failed only: why they died')
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .action(
      action(async (ctx, cmd) => {
        const [name, st] = cmd.processedArgs as [string, JobState];
        const o = cmd.opts<{ name?: string; reason?: string; output?: string }>();
        const queue = await ctx.queue(name);
        if (o.reason !== undefined && st !== 'failed') throw new UsageError(`--reason applies to failed jobs, not ${st}`);
        const out: NodeJS.WritableStream = o.output === undefined ? process.stdout : createWriteStream(o.output, { flags: 'wx' });
        if (o.output !== undefined) await once(out, 'open');
        let written = 0;
        const work = async (): Promise<void> => {
          for await (const job of queue.exportJobs(st, { ...(o.name !== undefined && { name: o.name }), ...(o.reason !== undefined && { reason: o.reason }) })) {
            await writeLine(out, `${JSON.stringify(jobJson(job))}\n`);
            written++;
          }
        };
        // The bar goes to a terminal on stderr only while the jobs go elsewhere (a file or a pipe).
        const total = (await queue.getCounts())[st];
        const barShown = process.stderr.isTTY && (o.output !== undefined || !process.stdout.isTTY) && total >= 1000;
        await (barShown ? progress(`export ${st}`, total, async () => written, work) : work());
        if (o.output !== undefined) {
          (out as NodeJS.WritableStream & { end(cb: () => void): void }).end(() => undefined);
          await once(out, 'finish');
          process.stderr.write(`exported ${written.toLocaleString('en-US')} ${st} jobs to ${o.output}\n`);
        }
      }),
    );
};

