import { Queue, type RedisStore } from '../../lib/index.js';
import { testStore, uniquePrefix, redisUrl } from '../helpers/store.js';
import { cliEnv, deadLetters, expectCleanError, runCli } from './cli.js';

describe('spool CLI, changing: redrive, cancel, promote, purge, pause, resume', () => {
  let store: RedisStore;
  let env: NodeJS.ProcessEnv;
  let queue: Queue;

  beforeEach(async () => {
    const prefix = uniquePrefix('cli');
    store = await testStore(redisUrl(), prefix);
    env = cliEnv(prefix);
    queue = new Queue('emails', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('refuses a destructive command without --yes when stdin is not a terminal: exit 2, nothing changed', async () => {
    await deadLetters(store, queue, [{ name: 'welcome', reason: 'error', message: 'boom' }]);
    await queue.add('later', 1, { delay: 60_000 });
    const runs = await Promise.all([
      runCli(['redrive', 'emails', '--all'], env),
      runCli(['purge', 'emails', 'failed'], env),
      runCli(['cancel', 'emails', '--all', '--state', 'delayed'], env),
      runCli(['promote', 'emails', '--all'], env),
    ]);
    for (const run of runs) {
      expect(run.code).toBe(2);
      expectCleanError(run, /refusing to .* without confirmation: stdin is not a terminal; add --yes/);
    }
    expect(runs[1]!.stderr).toContain('refusing to delete 1 failed job in emails');
    expect(await queue.getCounts()).toMatchObject({ failed: 1, delayed: 1 });
  });

  it('redrive by id and --all with filters; the jobs wait again', async () => {
    const ids = await deadLetters(store, queue, [
      { name: 'welcome', reason: 'error', message: 'a' },
      { name: 'welcome', reason: 'timeout', message: 'b' },
      { name: 'digest', reason: 'timeout', message: 'c' },
      { name: 'digest', reason: 'error', message: 'd' },
    ]);
    const one = await runCli(['redrive', 'emails', ids[0]!, '--yes', '--json'], env);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual({ queue: 'emails', redriven: 1 });
    const filtered = await runCli(['redrive', 'emails', '--all', '--reason', 'timeout', '--yes'], env);
    expect(filtered).toMatchObject({ code: 0, stdout: 'redriven: 2 jobs\n' });
    expect((await queue.getJob(ids[1]!))!.state).toBe('waiting');
    expect((await queue.getJob(ids[3]!))!.state).toBe('failed');
    const usage = await runCli(['redrive', 'emails', ids[3]!, '--all'], env);
    expect(usage.code).toBe(2);
    expectCleanError(usage, /give job ids or --all, not both/);
  });

  it('cancel and promote: by id and --all of a name', async () => {
    const [a, b, c] = await queue.addBulk([
      { name: 'reminder', data: 1, opts: { delay: 60_000 } },
      { name: 'reminder', data: 2, opts: { delay: 60_000 } },
      { name: 'digest', data: 3, opts: { delay: 60_000 } },
    ]);
    const promote = await runCli(['promote', 'emails', '--all', '--name', 'reminder', '--yes', '--json'], env);
    expect(JSON.parse(promote.stdout)).toEqual({ queue: 'emails', promoted: 2 });
    expect((await queue.getJob(a!.id))!.state).toBe('waiting');
    const cancel = await runCli(['cancel', 'emails', b!.id, c!.id, '--yes'], env);
    expect(cancel).toMatchObject({ code: 0, stdout: 'cancelled: 2 jobs\n' });
    expect(await queue.getCounts()).toMatchObject({ waiting: 1, delayed: 0, cancelled: 2 });
    const badState = await runCli(['cancel', 'emails', '--all', '--state', 'active', '--yes'], env);
    expect(badState.code).toBe(2);
    expectCleanError(badState, /--state must be waiting or delayed/);
  });

  it('purge: finished jobs older than a duration, and all of them', async () => {
    await deadLetters(store, queue, [
      { name: 'welcome', reason: 'error', message: 'a' },
      { name: 'welcome', reason: 'error', message: 'b' },
    ]);
    const young = await runCli(['purge', 'emails', 'failed', '--older-than', '1h', '--yes', '--json'], env);
    expect(JSON.parse(young.stdout)).toEqual({ queue: 'emails', state: 'failed', purged: 0 });
    const all = await runCli(['purge', 'emails', 'failed', '--yes'], env);
    expect(all).toMatchObject({ code: 0, stdout: 'purged: 2 failed jobs\n' });
    expect((await queue.getCounts()).failed).toBe(0);
    const bad = await Promise.all([runCli(['purge', 'emails', 'waiting', '--yes'], env), runCli(['purge', 'emails', 'failed', '--older-than', 'soon', '--yes'], env)]);
    for (const run of bad) expect(run.code).toBe(2);
    expect(bad[0]!.stderr).toMatch(/only finished jobs are purged/);
    expect(bad[1]!.stderr).toMatch(/must be a duration like 30s/);
  });

  it('pause and resume: the queue, and job names', async () => {
    await queue.add('digest', 1);
    expect(await runCli(['pause', 'emails'], env)).toMatchObject({ code: 0, stdout: 'paused queue emails\n' });
    expect(await queue.isPaused()).toBe(true);
    expect(await runCli(['pause', 'emails'], env)).toMatchObject({ code: 0, stdout: 'queue emails was already paused\n' });
    const resumed = await runCli(['resume', 'emails', '--json'], env);
    expect(JSON.parse(resumed.stdout)).toEqual({ queue: 'emails', resumed: true });
    expect(await runCli(['pause', 'emails', '--name', 'digest', 'newsletter'], env)).toMatchObject({ code: 0, stdout: 'paused "digest", "newsletter" in emails\n' });
    expect((await queue.pausedNames()).sort()).toEqual(['digest', 'newsletter']);
    await runCli(['resume', 'emails', '--name', 'digest', 'newsletter'], env);
    expect(await queue.pausedNames()).toEqual([]);
  });
});
