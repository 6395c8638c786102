import { Command, Option } from 'commander';
import { SingleBar } from 'cli-progress';
import { BULLMQ_REDIS, importFromBullMQ } from '../migrate/import-bullmq.js';
import { RedisUnavailableError } from '../store/errors.js';
import { BULL_STATES, DEFAULT_STATES, type BullState, type ImportProgress, type ImportReport } from '../migrate/report.js';
import { nodeConnectionOf, SOURCE } from './connection.js';
import { Context, type GlobalOptions } from './context.js';
import { CliError, UsageError } from './errors.js';
import { formatCount, table } from './format.js';
import type { Register } from './program.js';

interface ImportOptions {
  readonly fromUrl?: string;
  readonly fromSentinel?: string;
  readonly fromUsername?: string;
  readonly fromTlsCa?: string;
  readonly fromTlsCert?: string;
  readonly fromTlsKey?: string;
  readonly bullPrefix: string;
  readonly toUrl?: string;
  readonly states?: string;
  readonly dryRun?: boolean;
  readonly removeImported?: boolean;
  readonly yes?: boolean;
}

function statesOf(text: string | undefined): BullState[] {
  if (text === undefined) return [...DEFAULT_STATES];
  const states = text.split(',').map((s) => s.trim()).filter(Boolean);
  const unknown = states.filter((s) => !(BULL_STATES as readonly string[]).includes(s));
  if (states.length === 0 || unknown.length > 0) throw new UsageError(`--states: ${unknown.join(', ') || 'none given'}: use some of ${BULL_STATES.join(', ')}`);
  return states as BullState[];
}

/**
 * BullMQ's Redis from the --from-* flags: the same connection flags as the
 * target's (connection.ts), `--from-` in front, passwords from BULLMQ_PASSWORD
 * and BULLMQ_SENTINEL_PASSWORD. No cluster: the importer reads one node.
 */
function sourceOf(o: ImportOptions): ReturnType<typeof nodeConnectionOf> {
  if ((o.fromUrl === undefined) === (o.fromSentinel === undefined)) {
    throw new UsageError(`${o.fromUrl === undefined ? 'no BullMQ Redis given' : '--from-url and --from-sentinel name two'}: give one of --from-url (BULLMQ_URL) or --from-sentinel (BULLMQ_SENTINEL)`);
  }
  return nodeConnectionOf(
    { url: o.fromUrl ?? '', sentinel: o.fromSentinel, username: o.fromUsername, tlsCa: o.fromTlsCa, tlsCert: o.fromTlsCert, tlsKey: o.fromTlsKey },
    process.env,
    SOURCE,
  );
}

/** The summary: one row per queue and state: found, imported, already in Spool, skipped with reasons. */
export function importTable(report: ImportReport): string {
  const rows: string[][] = [];
  const removed = report.queues.some((q) => Object.values(q.states).some((t) => (t?.removed ?? 0) > 0));
  for (const q of report.queues) {
    for (const [state, t] of Object.entries(q.states)) {
      if (!t || t.found === 0) continue;
      const skipped = Object.entries(t.skipped).map(([reason, n]) => `${formatCount(n)} ${reason}`).join('; ');
      rows.push([q.queue, state, formatCount(t.found), formatCount(t.imported), formatCount(t.existing), skipped || '0', ...(removed ? [formatCount(t.removed)] : [])]);
    }
  }
  const head = ['queue', 'state', 'found', report.dryRun ? 'would import' : 'imported', 'in Spool already', 'skipped', ...(removed ? ['removed from BullMQ'] : [])];
  const lines = [rows.length > 0 ? table(head, rows) : 'nothing found in BullMQ under these names'];
  for (const q of report.queues) {
    if (q.paused) lines.push(`${q.queue}: paused in BullMQ, ${report.dryRun ? 'would be' : 'is'} paused in Spool`);
    for (const warning of q.warnings) lines.push(`${q.queue}: warning: ${warning}`);
  }
  const listed = report.notes.slice(0, 20);
  if (listed.length > 0) lines.push('', 'jobs to look at (all of them with --json):');
  for (const n of listed) lines.push(`  ${n.queue} ${n.state} ${n.bullId}: ${n.outcome === 'skipped' ? `skipped, ${n.reason}${n.detail ? ` (${n.detail})` : ''}` : `imported; not carried: ${n.notCarried.join('; ')}`}`);
  if (report.notes.length + report.notesDropped > listed.length) lines.push(`  ... and ${formatCount(report.notes.length + report.notesDropped - listed.length)} more`);
  return lines.join('\n');
}

/** A bar per queue and state on stderr, on a terminal only. */
function progressBar(enabled: boolean): { update: (p: ImportProgress) => void; stop: () => void } {
  if (!enabled) return { update: () => undefined, stop: () => undefined };
  const bar = new SingleBar({ format: 'importing {label} [{bar}] {value}/{total} jobs', stream: process.stderr, hideCursor: true, clearOnComplete: true });
  let current = '';
  return {
    update: (p) => {
      const label = `${p.queue} ${p.state}`;
      if (label !== current) {
        if (current) bar.stop();
        bar.start(p.total, p.done, { label });
        current = label;
      } else bar.setTotal(p.total);
      bar.update(p.done, { label });
    },
    stop: () => current && bar.stop(),
  };
}

export const registerImport: Register = (program) => {
  const importer = program.command('import').description('bring jobs over from another queue system');
  importer
    .command('bullmq')
    .description("copy a BullMQ queue's jobs, flows, schedulers and paused state into Spool (BullMQ's keys are only read, unless --remove-imported)")
    .argument('<queues...>', "BullMQ queue names (a flow's queues in one run); each goes to the Spool queue of the same name")
    .addOption(new Option('--from-url <url>', "BullMQ's Redis: redis://[user:password@]host:port[/db], rediss:// for TLS").env('BULLMQ_URL'))
    .addOption(new Option('--from-sentinel <name@hosts>', "BullMQ's Redis through Sentinel, name@host:port,host:port (instead of --from-url; passwords from BULLMQ_PASSWORD, BULLMQ_SENTINEL_PASSWORD)").env('BULLMQ_SENTINEL'))
    .addOption(new Option('--from-username <user>', "BullMQ's master's ACL user with --from-sentinel (with --from-url it is in the URL)").env('BULLMQ_USERNAME'))
    .addOption(new Option('--from-tls-ca <file>', "PEM file of the CA that signed BullMQ's Redis certificate").env('BULLMQ_TLS_CA'))
    .addOption(new Option('--from-tls-cert <file>', 'PEM file of a client certificate for BullMQ\'s Redis (with --from-tls-key)').env('BULLMQ_TLS_CERT'))
    .addOption(new Option('--from-tls-key <file>', 'PEM file of that client certificate\'s key').env('BULLMQ_TLS_KEY'))
    .option('--bull-prefix <prefix>', "BullMQ's key prefix", 'bull')
    .option('--to-url <url>', "Spool's Redis (default: --url)")
    .option('--states <list>', `comma-separated, of ${BULL_STATES.join(', ')} (default: all but completed)`)
    .option('--dry-run', 'read and report what would be imported; write nothing')
    .option('--remove-imported', "delete each BullMQ job once its Spool copy is written (asks first)")
    .option('-y, --yes', 'do not ask for confirmation (required with --remove-imported when stdin is not a terminal)')
    .configureHelp({ showGlobalOptions: true })
    .addHelpText('after', '\nExamples:\n  spool import bullmq emails --from-url redis://old:6379 --dry-run\n  spool import bullmq orders emails --from-url redis://old:6379 --states delayed,failed,schedulers\n' +
        '  spool import bullmq emails --from-url rediss://old:6380 --from-tls-ca ca.pem --from-tls-cert client.pem --from-tls-key client.key\n' +
        '  BULLMQ_PASSWORD=pw spool import bullmq emails --from-sentinel mymaster@10.0.0.1:26379,10.0.0.2:26379')
    .action(async (queues: string[], _o: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals<GlobalOptions & ImportOptions>();
      const states = statesOf(o.states);
      if (o.dryRun && o.removeImported) throw new UsageError('--dry-run and --remove-imported: pick one');
      const source = sourceOf(o);
      const ctx = await Context.open({ ...o, url: o.toUrl ?? o.url });
      try {
        if (o.removeImported) await ctx.confirm(`import ${queues.join(', ')} and delete each BullMQ job once copied`, o.yes);
        const bar = progressBar(!ctx.json && process.stderr.isTTY === true);
        let report: ImportReport;
        try {
          report = await importFromBullMQ({
            from: source.connection, queue: queues, bullPrefix: o.bullPrefix, store: ctx.store, states,
            dryRun: o.dryRun === true, removeImported: o.removeImported === true, onProgress: bar.update,
          });
        } catch (err) {
          if (!(err instanceof RedisUnavailableError) || err.what !== BULLMQ_REDIS) throw err;
          const cause = (err.cause as { message?: string } | undefined)?.message?.trim();
          throw new CliError(`cannot reach BullMQ's Redis at ${source.where}${cause ? ` (${cause})` : ''}: check that it runs, and ${source.flag} (its user, password and --from-tls-* files)`);
        } finally {
          bar.stop();
        }
        ctx.result(report, importTable(report));
      } finally {
        await ctx.close();
      }
    });
};
