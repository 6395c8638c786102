import type { Command } from 'commander';
import { Outbox } from '../outbox/outbox.js';
import { PostgresUnavailableError, postgresError } from '../postgres/errors.js';
import { checkPostgresUrl, confirmChange, safeUrl, type GlobalOptions } from './context.js';
import { CliError, UsageError } from './errors.js';

interface OutboxFlags {
  readonly outboxSchema: string;
  readonly all?: boolean;
  readonly yes?: boolean;
}

/**
 * `spool outbox failed | retry | discard --postgres-url <url>`: the outbox
 * rows the relay set aside (Redis refused them maxAttempts times), put back
 * in its way, or deleted. Works on the database alone: Redis is not needed.
 */
export function registerOutbox(program: Command): void {
  const outbox = program
    .command('outbox')
    .description("the transactional outbox's failed rows (a Redis store's { tx } adds): list, retry, discard (--postgres-url)");
  const schemaOption = ['--outbox-schema <schema>', 'the schema of the outbox table', 'spool_outbox'] as const;

  outbox
    .command('failed')
    .description('rows the relay set aside, oldest first, with the last error')
    .option(...schemaOption)
    .option('--limit <n>', 'at most this many', '100')
    .action((flags: OutboxFlags & { limit: string }, cmd: Command) =>
      withOutbox(cmd, async (box, options) => {
        const limit = Number(flags.limit);
        if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a whole number >= 1, got "${flags.limit}"`);
        const rows = await box.failed(limit);
        if (options.json) return void process.stdout.write(`${JSON.stringify(rows)}\n`);
        if (rows.length === 0) return void process.stdout.write('no failed outbox rows\n');
        for (const r of rows) {
          process.stdout.write(`${r.seq}  ${r.queue}  ${r.jobId}${r.name ? ` (${r.name})` : ''}  ${r.attempts} attempts, failed ${new Date(r.failedAt).toISOString()}\n    ${r.error}\n`);
        }
      }),
    );

  for (const [name, description] of [
    ['retry', 'put failed rows back in the relay\'s way (they keep their place): the seqs given, or --all'],
    ['discard', 'delete failed rows (their jobs never reach Redis): the seqs given, or --all'],
  ] as const) {
    outbox
      .command(name)
      .description(description)
      .argument('[seq...]', 'row numbers as "spool outbox failed" lists them')
      .option(...schemaOption)
      .option('--all', 'every failed row')
      .option('-y, --yes', 'do not ask first (discard)')
      .action((seqs: string[], flags: OutboxFlags, cmd: Command) =>
        withOutbox(cmd, async (box, options) => {
          if ((seqs.length > 0) === (flags.all === true)) throw new UsageError(`outbox ${name} needs row numbers or --all (one of them)`);
          const which = flags.all ? undefined : seqs;
          if (name === 'discard') await confirmChange(`delete ${which ? which.length : 'every'} failed outbox row(s) for good`, flags.yes);
          const n = name === 'retry' ? await box.retry(which) : await box.discard(which);
          const done = name === 'retry' ? 'put back for the relay' : 'deleted';
          process.stdout.write(options.json ? `${JSON.stringify({ [name === 'retry' ? 'retried' : 'discarded']: n })}\n` : `${n} failed row(s) ${done}\n`);
        }),
      );
  }
}

/** The outbox of --postgres-url and --outbox-schema (never migrated here), closed after `work`; errors in the CLI's words. */
async function withOutbox(cmd: Command, work: (box: Outbox, options: GlobalOptions) => Promise<void>): Promise<void> {
  const options = cmd.optsWithGlobals<GlobalOptions & OutboxFlags>();
  if (options.postgresUrl === undefined) throw new UsageError('outbox needs --postgres-url (or SPOOL_POSTGRES_URL): the database of the outbox table');
  checkPostgresUrl(options.postgresUrl);
  const box = new Outbox({ connectionString: options.postgresUrl, schema: options.outboxSchema, migrate: false });
  try {
    await work(box, options);
  } catch (err) {
    if (err instanceof CliError) throw err;
    const typed = postgresError('outbox', err);
    if (typed instanceof PostgresUnavailableError) throw new CliError(`cannot reach PostgreSQL at ${safeUrl(options.postgresUrl)}: check that it runs, and --postgres-url or SPOOL_POSTGRES_URL`);
    if ((err as { code?: unknown }).code === '42P01') throw new CliError(`no outbox table in schema "${options.outboxSchema}" of ${safeUrl(options.postgresUrl)}: check --outbox-schema`);
    throw err;
  } finally {
    await box.disconnect().catch(() => undefined);
  }
}
