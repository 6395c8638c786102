import { Queue, type RedisStore } from '../../lib/index.js';
import { freePort } from '../helpers/redis-server.mjs';
import { testStore, uniquePrefix, redisUrl } from '../helpers/store.js';
import { cliEnv, expectCleanError, runCli } from './cli.js';

describe('spool CLI, failures: Redis down, bad URL, usage errors, help', () => {
  let store: RedisStore;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const prefix = uniquePrefix('cli');
    store = await testStore(redisUrl(), prefix);
    env = cliEnv(prefix);
    await new Queue('emails', { store }).add('welcome', 1);
  });
  afterAll(async () => {
    await store.disconnect();
  });

  it('Redis down or a bad URL: one clear line on stderr, exit 1, no stack trace', async () => {
    const port = await freePort();
    const [down, notUrl, notRedis] = await Promise.all([
      runCli(['counts'], cliEnv('x', { REDIS_URL: `redis://127.0.0.1:${port}` })),
      runCli(['--url', 'not a url', 'queues'], env),
      runCli(['--url', 'http://127.0.0.1:1', 'queues'], env),
    ]);
    expect(down.code).toBe(1);
    expectCleanError(down, new RegExp(`cannot reach Redis at redis://127.0.0.1:${port}.*ECONNREFUSED.*check that it runs, and --url or REDIS_URL`));
    expect(notUrl.code).toBe(1);
    expectCleanError(notUrl, /--url "not a url" is not a URL/);
    expect(notRedis.code).toBe(1);
    expectCleanError(notRedis, /is not a Redis URL: it must start with redis:\/\/ or rediss:\/\//);
  });

  it('usage errors exit 2 with the problem and a pointer to --help', async () => {
    const runs = await Promise.all([
      runCli(['frobnicate'], env),
      runCli(['list', 'emails'], env),
      runCli(['list', 'emails', 'lost'], env),
      runCli(['list', 'emails', 'failed', '--limit', '0'], env),
      runCli(['counts', '--colour'], env),
      runCli(['list', 'emails', 'waiting', '--reason', 'error'], env),
      runCli([], env),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
    expect(runs[0]!.stderr).toContain("unknown command 'frobnicate'");
    expect(runs[1]!.stderr).toContain("missing required argument 'state'");
    expect(runs[2]!.stderr).toMatch(/must be one of waiting, delayed, active/);
    expect(runs[3]!.stderr).toMatch(/must be a whole number from 1 to 1,000/);
    expect(runs[4]!.stderr).toContain("unknown option '--colour'");
    expect(runs[5]!.stderr).toContain('--reason applies to failed jobs, not waiting');
    expect(runs[6]!.stderr).toContain('Usage: spool');
  });

  it('--help lists the commands with examples and exits 0; --version prints the package version', async () => {
    const [help, redriveHelp, version] = await Promise.all([runCli(['--help'], env), runCli(['redrive', '--help'], env), runCli(['--version'], env)]);
    expect(help.code).toBe(0);
    for (const command of ['queues', 'counts', 'list', 'show', 'redrive', 'cancel', 'promote', 'purge', 'pause', 'resume', 'export', 'events', 'watch']) {
      expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
    expect(help.stdout).toContain('Examples:');
    expect(help.stdout).toContain('Exit status: 0 done, 1 failed');
    expect(redriveHelp).toMatchObject({ code: 0 });
    expect(redriveHelp.stdout).toContain('spool redrive emails --all --reason timeout --yes');
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });
});
