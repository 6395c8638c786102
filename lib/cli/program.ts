import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { registerActions } from './actions.js';
import { Context, DEFAULT_URL, type GlobalOptions } from './context.js';
import { EXIT_OK, EXIT_USAGE, describeFailure } from './errors.js';
import { registerInspect } from './inspect.js';
import { registerLive } from './live.js';
import { registerImport } from './import.js';
import { registerMigrate } from './migrate-command.js';
import { registerOutbox } from './outbox-command.js';
import { registerOps } from './ops.js';
import { registerDoctor } from './doctor.js';

/** A command's work, given a connected context; the store is closed after it, whatever happens. */
export type Work = (ctx: Context, cmd: Command) => Promise<void>;
export type Action = (work: Work) => (...args: unknown[]) => Promise<void>;
/** Each command group adds its commands to the program. */
export type Register = (program: Command, action: Action) => void;

const EXAMPLES = `
Examples:
  spool counts                                   jobs per state in every queue
  spool list emails failed --reason timeout      the dead letters that timed out
  spool show emails 01HZX3K9                     one job: data, error with stack, logs
  spool redrive emails --all --name welcome -y   re-run every dead "welcome" email
  spool purge emails completed --older-than 7d   delete old completed jobs (asks first)
  spool export emails failed > dead.ndjson       dead letters as NDJSON
  spool events emails                            tail the event stream
  spool workers                                  every worker of every queue
  spool schedulers emails run-now digest -y      one "digest" job now, off its cadence
  spool metrics emails --json                    the last hour's figures for scripts
  spool doctor                                   check Redis and the queues; exit 1 on a problem
  REDIS_URL=redis://cache:6379 spool watch       live counts, redrawn in place
  spool counts --url rediss://app:pw@redis:6380 --tls-ca ca.pem             over TLS with a private CA
  REDIS_PASSWORD=pw spool counts --sentinel mymaster@10.0.0.1:26379,10.0.0.2:26379
  spool import bullmq emails --from-url redis://old:6379 --dry-run   what BullMQ's jobs would become
  spool migrate --postgres-url postgres://app@db/app   create or upgrade the PostgreSQL schema
  spool counts --postgres-url postgres://app@db/app    the same commands on a PostgresStore
  spool outbox failed --postgres-url postgres://app@db/app   outbox rows Redis refused, set aside

Exit status: 0 done, 1 failed (Redis unreachable, unknown queue or job), 2 wrong usage.
Destructive commands ask first on a terminal; elsewhere they need --yes.`;

function version(): string {
  try {
    // dist/cjs/cli/program.js -> package.json
    return (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const action: Action = (work) => async (...args) => {
  const cmd = args[args.length - 1] as Command;
  const ctx = await Context.open(cmd.optsWithGlobals<GlobalOptions>());
  try {
    await work(ctx, cmd);
  } finally {
    await ctx.close();
  }
};

export function buildProgram(): Command {
  const program = new Command('spool')
    .description('Operate Spool queues on Redis: counts, dead letters, redrive, purge, events.')
    .version(version(), '-V, --version')
    .addOption(new Option('--url <url>', 'Redis URL').env('REDIS_URL').default(DEFAULT_URL))
    .addOption(new Option('--cluster <urls>', 'Redis Cluster node URLs, comma-separated (instead of --url)').env('SPOOL_CLUSTER'))
    .addOption(new Option('--sentinel <name@hosts>', 'Redis Sentinel: the master name and sentinels, name@host:port,host:port (instead of --url; passwords from REDIS_PASSWORD, SPOOL_SENTINEL_PASSWORD)').env('SPOOL_SENTINEL'))
    .addOption(new Option('--username <user>', "the master's ACL user with --sentinel (with --url it is in the URL)").env('REDIS_USERNAME'))
    .addOption(new Option('--tls-ca <file>', 'PEM file of the CA that signed the server certificate (rediss://)').env('SPOOL_TLS_CA'))
    .addOption(new Option('--tls-cert <file>', 'PEM file of a client certificate (with --tls-key)').env('SPOOL_TLS_CERT'))
    .addOption(new Option('--tls-key <file>', 'PEM file of the client certificate key').env('SPOOL_TLS_KEY'))
    .addOption(new Option('--shards <n>', "a sharded queue's shard count (default: read from Redis; given, it must match)"))
    .addOption(new Option('--prefix <prefix>', 'key prefix the queues were created with').env('SPOOL_PREFIX').default('spool'))
    .addOption(new Option('--postgres-url <url>', 'a PostgreSQL database (PostgresStore) instead of Redis').env('SPOOL_POSTGRES_URL'))
    .addOption(new Option('--schema <schema>', 'the PostgreSQL schema of the queues (with --postgres-url)').env('SPOOL_SCHEMA').default('spool'))
    .option('--json', 'machine-readable output (one JSON document, or NDJSON for streams)')
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', EXAMPLES)
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`spool: ${text.replace(/^error: /, '')}`) });
  registerInspect(program, action);
  registerActions(program, action);
  registerOps(program, action);
  registerDoctor(program, action);
  registerLive(program, action);
  registerImport(program, action);
  registerMigrate(program);
  registerOutbox(program);
  for (const sub of program.commands.flatMap((c) => [c, ...c.commands])) sub.exitOverride().showHelpAfterError('(add --help for usage)');
  return program;
}

/** Runs the CLI on argv; resolves the exit code. Errors are one line on stderr, never a stack. */
export async function run(argv: readonly string[]): Promise<number> {
  const program = buildProgram();
  if (argv.length <= 2) {
    program.outputHelp({ error: true });
    return EXIT_USAGE;
  }
  try {
    await program.parseAsync([...argv]);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version exit 0; every other parse error is a usage error (commander printed it).
      return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    const { message, exitCode } = describeFailure(err);
    process.stderr.write(`spool: ${message}\n`);
    return exitCode;
  }
}
