import type { Command } from 'commander';
import { listQueues } from '../engine/list-queues.js';
import { QueueEvents } from '../engine/queue-events.js';
import type { EventGap, QueueEvent } from '../engine/queue-events-types.js';
import type { Context } from './context.js';
import { countsJson, countsTable, readCounts } from './inspect.js';
import { positiveInt, duration } from './parse.js';
import type { Register } from './program.js';

/** Commands that run until stopped (Ctrl-C) or a count: events, watch. */

/** Resolves on SIGINT or SIGTERM (the listeners are removed after). */
function interrupted(): { promise: Promise<void>; dispose(): void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  const on = (): void => resolve();
  process.once('SIGINT', on);
  process.once('SIGTERM', on);
  return { promise, dispose: () => (process.off('SIGINT', on), process.off('SIGTERM', on)) };
}

function eventLine(e: QueueEvent | EventGap): string {
  const time = e.event === 'gap' ? '' : new Date(Number(e.id.split('-')[0])).toISOString().slice(11, 23);
  const { id: _id, event, ...rest } = e as unknown as Record<string, unknown>;
  const jobId = typeof rest.jobId === 'string' ? rest.jobId : '';
  delete rest.jobId;
  const detail = Object.entries(rest)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return [time.padEnd(12), String(event).padEnd(10), jobId.padEnd(10), detail].join(' ').trimEnd();
}

async function tail(ctx: Context, cmd: Command): Promise<void> {
  const [name] = cmd.processedArgs as [string];
  const o = cmd.opts<{ from: string; count?: number }>();
  const queue = await ctx.queue(name);
  const events = new QueueEvents(queue.name, { store: ctx.store, from: o.from, blockMs: 1000 });
  events.on('error', (err) => process.stderr.write(`spool: reading events failed (${err.message}); retrying\n`));
  const stop = interrupted();
  let seen = 0;
  try {
    await events.ready();
    process.stderr.write(`watching events of ${name}${o.count ? ` until ${o.count} arrive` : ''} (Ctrl-C to stop)\n`);
    const iterator = events[Symbol.asyncIterator]();
    const stopped = stop.promise.then(() => 'stop' as const);
    while (o.count === undefined || seen < o.count) {
      const next = await Promise.race([iterator.next(), stopped]);
      if (next === 'stop' || next.done) break;
      seen++;
      process.stdout.write(ctx.json ? `${JSON.stringify(next.value)}\n` : `${eventLine(next.value)}\n`);
    }
    // close() first: it wakes the iterator's pending next(), which a return() would wait behind.
    await events.close();
    await iterator.return(undefined);
  } finally {
    stop.dispose();
    await events.close();
  }
}

async function watch(ctx: Context, cmd: Command): Promise<void> {
  const [only] = cmd.processedArgs as [string[]];
  const o = cmd.opts<{ interval: number; count?: number }>();
  for (const name of only) await ctx.queue(name);
  const live = process.stdout.isTTY && !ctx.json;
  const stop = interrupted();
  let stopped = false;
  void stop.promise.then(() => (stopped = true));
  let lines = 0;
  try {
    for (let tick = 0; !stopped && (o.count === undefined || tick < o.count); tick++) {
      if (tick > 0) await Promise.race([new Promise((r) => setTimeout(r, o.interval)), stop.promise]);
      if (stopped) break;
      const names = only.length > 0 ? only : await listQueues(ctx.store);
      const rows = await readCounts(ctx, names);
      if (ctx.json) {
        process.stdout.write(`${JSON.stringify({ at: new Date().toISOString(), queues: countsJson(rows) })}\n`);
        continue;
      }
      const text = `${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC, every ${o.interval / 1000}s${live ? ' (Ctrl-C to stop)' : ''}\n${rows.length > 0 ? countsTable(rows) : 'no queues yet'}\n`;
      // On a terminal the table is redrawn in place: cursor up over the last one, clear to the end.
      process.stdout.write(live && lines > 0 ? `\x1b[${lines}A\x1b[0J${text}` : text);
      lines = text.split('\n').length - 1;
    }
  } finally {
    stop.dispose();
  }
}

export const registerLive: Register = (program, action) => {
  program
    .command('events')
    .description("tail a queue's event stream (added, active, completed, failed, ...) until Ctrl-C")
    .argument('<queue>')
    .option('--from <id>', "where to start: '$' new events only, '0' every event the stream still holds, or an event id", '$')
    .option('--count <n>', 'stop after this many events', positiveInt(1_000_000_000))
    .addHelpText('after', '\nExamples:\n  spool events emails\n  spool events emails --from 0 --json | jq \'select(.event == "failed")\'')
    .action(action(tail));

  program
    .command('watch')
    .description('live counts per queue, redrawn in place until Ctrl-C')
    .argument('[queues...]', 'only these queues (default: every queue)')
    .option('--interval <duration>', 'time between refreshes (e.g. 2s)', duration, 1000)
    .option('--count <n>', 'stop after this many refreshes', positiveInt(1_000_000_000))
    .addHelpText('after', '\nExamples:\n  spool watch\n  spool watch emails billing --interval 5s')
    .action(action(watch));
};
