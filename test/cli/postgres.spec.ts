import { Queue } from '../../lib/index.js';
import { PostgresStore, SCHEMA_VERSION } from '../../lib/postgres/index.js';
import { uniqueSchema, usePostgresServer } from '../helpers/postgres.js';
import { cliEnv, expectCleanError, runCli } from './cli.js';

/** The CLI on a PostgresStore: `spool migrate` and the same commands with --postgres-url. */
describe('spool --postgres-url', () => {
  const server = usePostgresServer();

  it('migrate creates the schema once; the commands then read the PostgreSQL queues', async () => {
    const schema = uniqueSchema('cli');
    const env = cliEnv('unused');
    const first = await runCli(['migrate', '--postgres-url', server().url(), '--schema', schema], env);
    expect(first).toMatchObject({ code: 0, stdout: `schema "${schema}" migrated from version 0 to ${SCHEMA_VERSION}\n` });
    const again = await runCli(['migrate', '--postgres-url', server().url(), '--schema', schema, '--json'], env);
    expect(JSON.parse(again.stdout)).toEqual({ schema, from: SCHEMA_VERSION, to: SCHEMA_VERSION });

    const store = new PostgresStore({ connectionString: server().url(), schema });
    await store.connect();
    try {
      await new Queue('emails', { store }).addBulk([{ name: 'a', data: {} }, { name: 'b', data: {}, opts: { delay: 60_000 } }]);
    } finally {
      await store.disconnect();
    }
    const counts = await runCli(['counts', '--postgres-url', server().url(), '--schema', schema, '--json'], env);
    expect(counts.code).toBe(0);
    expect(JSON.parse(counts.stdout)).toEqual([expect.objectContaining({ queue: 'emails', counts: expect.objectContaining({ waiting: 1, delayed: 1 }) })]);
  });

  it('says what is wrong without a stack: an unmigrated schema, a Redis URL, an unreachable server', async () => {
    const env = cliEnv('unused');
    expectCleanError(await runCli(['counts', '--postgres-url', server().url(), '--schema', uniqueSchema('none')], env), /schema "none_[0-9a-f]+" is at version 0.*migrate/);
    expectCleanError(await runCli(['counts', '--postgres-url', 'redis://127.0.0.1:6379'], env), /is not a PostgreSQL URL/);
    expectCleanError(await runCli(['counts', '--postgres-url', 'postgres://nobody@127.0.0.1:1/none'], env), /cannot reach PostgreSQL at postgres:\/\/nobody@127\.0\.0\.1:1\/none/);
    expectCleanError(await runCli(['migrate'], env), /migrate needs --postgres-url/);
  });
});
