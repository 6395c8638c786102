import { Command } from 'commander';
import type { Queue } from '../engine/queue.js';
import { UsageError } from './errors.js';
import { formatCount, formatDuration } from './format.js';
import { duration, finishedState, positiveInt, type Finished } from './parse.js';
import type { Register } from './program.js';

/** Commands that change jobs or the queue: redrive, cancel, promote, purge, pause, resume. */

interface BulkOptions {
  readonly all?: boolean;
  readonly name?: string;
  readonly yes?: boolean;
}

/** Ids or --all, never both, never neither. */
function targetOf(command: string, ids: readonly string[], o: BulkOptions): 'ids' | 'all' {
  if (ids.length > 0 && o.all) throw new UsageError(`${command}: give job ids or --all, not both`);
  if (ids.length === 0 && !o.all) throw new UsageError(`${command}: give one or more job ids, or --all (narrowed with the filters)`);
  if (ids.length > 0 && o.name !== undefined) throw new UsageError(`${command}: --name narrows --all; with ids, leave it out`);
  return ids.length > 0 ? 'ids' : 'all';
}

function jobs(n: number): string {
  return `${formatCount(n)} job${n === 1 ? '' : 's'}`;
}

function filterText(o: { readonly name?: string; readonly reason?: string }): string {
  const parts = [o.name !== undefined && `named "${o.name}"`, o.reason !== undefined && `with reason "${o.reason}"`].filter(Boolean);
  return parts.length > 0 ? ` ${parts.join(' ')}` : '';
}

/** The state's count now, for the progress bar: how many have left it since `before`. */
function movedFrom(queue: Queue, st: 'failed' | 'delayed' | 'waiting' | Finished, before: number): () => Promise<number> {
  return async () => before - (await queue.getCounts())[st];
}

function bulk(program: Command, name: string, description: string, example: string): Command {
  return program
    .command(name)
    .description(description)
    .argument('<queue>')
    .argument('[ids...]', 'job ids')
    .option('--all', 'every matching job instead of ids')
    .option('--name <name>', 'with --all: only jobs of this name')
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
    .addHelpText('after', `\nExample:\n  ${example}`);
}

export const registerActions: Register = (program, action) => {
  bulk(program, 'redrive', 'move dead letters (failed jobs) back to waiting, attempts reset', 'spool redrive emails --all --reason timeout --yes')
    .option('--reason <reason>', 'with --all: only jobs that died for this reason')
    .option('--delay <duration>', 'wait this long before they run again (e.g. 30s, 5m)', duration)
    .option('--keep-attempts', 'keep the attempts already used instead of starting from 0')
    .action(
      action(async (ctx, cmd) => {
        const [name, ids] = cmd.processedArgs as [string, string[]];
        const o = cmd.opts<BulkOptions & { reason?: string; delay?: number; keepAttempts?: boolean }>();
        const target = targetOf('redrive', ids, o);
        if (target === 'ids' && o.reason !== undefined) throw new UsageError('redrive: --reason narrows --all; with ids, leave it out');
        const queue = await ctx.queue(name);
        const failed = (await queue.getCounts()).failed;
        const options = { resetAttempts: !o.keepAttempts, ...(o.delay !== undefined && { delay: o.delay }) };
        const filtered = o.name !== undefined || o.reason !== undefined;
        const what =
          target === 'ids'
            ? `redrive ${jobs(ids.length)} of ${name}`
            : filtered
              ? `redrive every failed job${filterText(o)} of ${name} (${jobs(failed)} failed in all)`
              : `redrive ${jobs(failed)} of ${name}`;
        await ctx.confirm(what, o.yes);
        const moved =
          target === 'ids'
            ? await queue.redrive([...ids], options)
            : await ctx.withProgress('redrive', filtered ? 0 : failed, movedFrom(queue, 'failed', failed), () =>
                queue.redrive({ filter: { ...(o.name !== undefined && { name: o.name }), ...(o.reason !== undefined && { reason: o.reason }) } }, options),
              );
        ctx.result({ queue: name, redriven: moved }, `redriven: ${jobs(moved)}${target === 'ids' && moved < ids.length ? ` (${jobs(ids.length - moved)} not failed, skipped)` : ''}`);
      }),
    );

  bulk(program, 'cancel', 'cancel waiting or delayed jobs (a running job is asked to stop)', 'spool cancel emails --all --state delayed --name digest --yes')
    .option('--state <state>', 'with --all: waiting or delayed', 'waiting')
    .action(
      action(async (ctx, cmd) => {
        const [name, ids] = cmd.processedArgs as [string, string[]];
        const o = cmd.opts<BulkOptions & { state: string }>();
        const target = targetOf('cancel', ids, o);
        if (o.state !== 'waiting' && o.state !== 'delayed') throw new UsageError(`cancel: --state must be waiting or delayed, got "${o.state}" (cancel active jobs by id)`);
        const st = o.state;
        const queue = await ctx.queue(name);
        const before = (await queue.getCounts())[st];
        await ctx.confirm(
          target === 'ids' ? `cancel ${jobs(ids.length)} of ${name}` : `cancel every ${st} job${filterText(o)} of ${name} (${jobs(before)} ${st} in all)`,
          o.yes,
        );
        const count =
          target === 'ids'
            ? await queue.cancel([...ids])
            : await ctx.withProgress('cancel', o.name === undefined ? before : 0, movedFrom(queue, st, before), () =>
                queue.cancel({ filter: { state: st, ...(o.name !== undefined && { name: o.name }) } }),
              );
        ctx.result({ queue: name, cancelled: count }, `cancelled: ${jobs(count)}`);
      }),
    );

  bulk(program, 'promote', 'run delayed jobs now', 'spool promote emails --all --name reminder --yes').action(
    action(async (ctx, cmd) => {
      const [name, ids] = cmd.processedArgs as [string, string[]];
      const o = cmd.opts<BulkOptions>();
      const target = targetOf('promote', ids, o);
      const queue = await ctx.queue(name);
      const before = (await queue.getCounts()).delayed;
      await ctx.confirm(
        target === 'ids' ? `promote ${jobs(ids.length)} of ${name}` : `promote every delayed job${filterText(o)} of ${name} (${jobs(before)} delayed in all)`,
        o.yes,
      );
      const moved =
        target === 'ids'
          ? await queue.promote([...ids])
          : await ctx.withProgress('promote', o.name === undefined ? before : 0, movedFrom(queue, 'delayed', before), () =>
              queue.promote({ filter: o.name === undefined ? {} : { name: o.name } }),
            );
      ctx.result({ queue: name, promoted: moved }, `promoted: ${jobs(moved)}`);
    }),
  );

  program
    .command('purge')
    .description('delete finished jobs (completed, failed or cancelled), oldest first')
    .argument('<queue>')
    .argument('<state>', 'completed, failed or cancelled', finishedState)
    .option('--older-than <duration>', 'only jobs finished at least this long ago (e.g. 7d, 12h)', duration)
    .option('--name <name>', 'only jobs of this name')
    .option('--limit <n>', 'at most this many jobs', positiveInt(Number.MAX_SAFE_INTEGER))
    .option('-y, --yes', 'do not ask for confirmation (required when stdin is not a terminal)')
    .addHelpText('after', '\nExample:\n  spool purge emails completed --older-than 7d --yes')
    .action(
      action(async (ctx, cmd) => {
        const [name, st] = cmd.processedArgs as [string, Finished];
        const o = cmd.opts<{ olderThan?: number; name?: string; limit?: number; yes?: boolean }>();
        const queue = await ctx.queue(name);
        const before = (await queue.getCounts())[st];
        const scope = `${o.olderThan !== undefined ? ` finished over ${formatDuration(o.olderThan)} ago` : ''}${filterText(o)}`;
        const what = scope === '' && o.limit === undefined ? `delete ${formatCount(before)} ${st} job${before === 1 ? '' : 's'} in ${name}` : `delete ${st} jobs${scope} of ${name}${o.limit !== undefined ? `, at most ${formatCount(o.limit)}` : ''} (${jobs(before)} ${st} in all)`;
        await ctx.confirm(what, o.yes);
        const options = { ...(o.olderThan !== undefined && { olderThan: o.olderThan }), ...(o.name !== undefined && { name: o.name }), ...(o.limit !== undefined && { limit: o.limit }) };
        const removed = await ctx.withProgress('purge', Math.min(before, o.limit ?? before), movedFrom(queue, st, before), () => queue.purge(st, options));
        ctx.result({ queue: name, state: st, purged: removed }, `purged: ${formatCount(removed)} ${st} job${removed === 1 ? '' : 's'}`);
      }),
    );

  for (const verb of ['pause', 'resume'] as const) {
    program
      .command(verb)
      .description(verb === 'pause' ? 'stop workers claiming from a queue (or only jobs of some names)' : 'let workers claim again (from the queue, or jobs of some names)')
      .argument('<queue>')
      .option('--name <names...>', `${verb} only jobs of these names`)
      .addHelpText('after', `\nExamples:\n  spool ${verb} emails\n  spool ${verb} emails --name digest newsletter`)
      .action(
        action(async (ctx, cmd) => {
          const [name] = cmd.processedArgs as [string];
          const o = cmd.opts<{ name?: string[] }>();
          const queue = await ctx.queue(name);
          const options = o.name === undefined ? undefined : { names: o.name };
          const changed = verb === 'pause' ? await queue.pause(options) : await queue.resume(options);
          const subject = o.name === undefined ? `queue ${name}` : `${o.name.map((n) => `"${n}"`).join(', ')} in ${name}`;
          const past = verb === 'pause' ? 'paused' : 'resumed';
          ctx.result({ queue: name, ...(o.name && { names: o.name }), [past]: changed }, changed ? `${past} ${subject}` : `${subject} was already ${verb === 'pause' ? 'paused' : 'running'}`);
        }),
      );
  }
};
