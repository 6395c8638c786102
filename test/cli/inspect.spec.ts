import { Queue, type RedisStore } from '../../lib/index.js';
import { testStore, uniquePrefix, redisUrl } from '../helpers/store.js';
import { cliEnv, deadLetters, expectCleanError, parseNdjson, runCli } from './cli.js';

describe('spool CLI, reading: queues, counts, list, show, export (the built bin against real Redis)', () => {
  let store: RedisStore;
  let env: NodeJS.ProcessEnv;
  let dead: string[];
  let waiting: string[];

  beforeAll(async () => {
    const prefix = uniquePrefix('cli');
    store = await testStore(redisUrl(), prefix);
    env = cliEnv(prefix);
    const emails = new Queue('emails', { store });
    dead = await deadLetters(store, emails, [
      { name: 'welcome', reason: 'error', message: 'SMTP 550 mailbox unavailable' },
      { name: 'digest', reason: 'timeout', message: 'took over 30000 ms' },
      { name: 'welcome', reason: 'timeout', message: 'took over 30000 ms' },
    ]);
    waiting = (await emails.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: i < 3 ? 'welcome' : 'digest', data: { i } })))).map((j) => j.id);
    await new Queue('billing', { store }).add('invoice', { n: 1 }, { delay: 3_600_000 });
  });
  afterAll(async () => {
    await store.disconnect();
  });

  it('queues: one name per line, or a JSON array', async () => {
    const [human, json] = await Promise.all([runCli(['queues'], env), runCli(['queues', '--json'], env)]);
    expect(human).toMatchObject({ code: 0, stdout: 'billing\nemails\n' });
    expect(JSON.parse(json.stdout)).toEqual(['billing', 'emails']);
  });

  it('counts: a table of every queue, JSON per queue, one queue by name', async () => {
    const [human, json, one] = await Promise.all([runCli(['counts'], env), runCli(['--json', 'counts'], env), runCli(['counts', 'emails', '--json'], env)]);
    expect(human.code).toBe(0);
    const emailsRow = human.stdout.split('\n').find((l) => l.includes(' emails '))!;
    expect(emailsRow.split('│').map((c) => c.trim())).toEqual(['', 'emails', 'running', '5', '0', '0', '0', '0', '3', '0', '0', '']);
    expect(human.stdout).toMatch(/│ queue\s+│ status\s+│ waiting/);
    expect(JSON.parse(json.stdout)).toEqual([
      { queue: 'billing', paused: false, counts: expect.objectContaining({ delayed: 1, waiting: 0 }) },
      { queue: 'emails', paused: false, counts: expect.objectContaining({ waiting: 5, failed: 3 }) },
    ]);
    expect(JSON.parse(one.stdout)).toEqual({ queue: 'emails', paused: false, counts: { waiting: 5, paused: 0, delayed: 0, active: 0, completed: 0, failed: 3, cancelled: 0, 'waiting-children': 0 } });
  });

  it('list failed: newest first, filtered by reason and name, paged with the cursor it prints', async () => {
    const first = await runCli(['list', 'emails', 'failed', '--limit', '2', '--json'], env);
    expect(first.code).toBe(0);
    const page1 = JSON.parse(first.stdout) as { jobs: { id: string; error: { message: string } }[]; cursor: string };
    expect(page1.jobs.map((j) => j.id)).toEqual([dead[2], dead[1]]);
    const [second, timeout, human] = await Promise.all([
      runCli(['list', 'emails', 'failed', '--limit', '2', '--cursor', page1.cursor, '--json'], env),
      runCli(['list', 'emails', 'failed', '--reason', 'timeout', '--name', 'welcome', '--json'], env),
      runCli(['list', 'emails', 'failed', '--limit', '2'], env),
    ]);
    expect(JSON.parse(second.stdout)).toEqual({ jobs: [expect.objectContaining({ id: dead[0], name: 'welcome' })], cursor: null });
    expect((JSON.parse(timeout.stdout) as { jobs: { id: string }[] }).jobs.map((j) => j.id)).toEqual([dead[2]]);
    expect(human.stdout).toContain('timeout: took over 30000 ms');
    expect(human.stdout).toMatch(new RegExp(`more: spool list emails failed --cursor \\S+ --limit 2`));
  });

  it('list of another state: oldest first, by name, with an offset cursor', async () => {
    const [all, digest] = await Promise.all([
      runCli(['list', 'emails', 'waiting', '--limit', '3', '--json'], env),
      runCli(['list', 'emails', 'waiting', '--name', 'digest', '--json'], env),
    ]);
    const page = JSON.parse(all.stdout) as { jobs: { id: string }[]; cursor: string };
    expect(page.jobs.map((j) => j.id)).toEqual(waiting.slice(0, 3));
    const rest = JSON.parse((await runCli(['list', 'emails', 'waiting', '--limit', '3', '--cursor', page.cursor, '--json'], env)).stdout) as { jobs: { id: string }[]; cursor: null };
    expect(rest).toEqual({ jobs: waiting.slice(3).map((id) => expect.objectContaining({ id })), cursor: null });
    expect((JSON.parse(digest.stdout) as { jobs: { id: string }[] }).jobs.map((j) => j.id)).toEqual(waiting.slice(3));
  });

  it('show: the job with its error, stack and logs; --json has the same', async () => {
    const [human, json] = await Promise.all([runCli(['show', 'emails', dead[0]!], env), runCli(['show', 'emails', dead[0]!, '--json'], env)]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/│ state\s+│ failed/);
    expect(human.stdout).toContain('error (error, Error):\nError: SMTP 550 mailbox unavailable\n    at handler');
    expect(human.stdout).toContain('logs:\nsending welcome');
    expect(human.stdout).toContain('"n": 0');
    expect(JSON.parse(json.stdout)).toMatchObject({ id: dead[0], queueName: 'emails', state: 'failed', data: { n: 0 }, logs: ['sending welcome'], error: { message: 'SMTP 550 mailbox unavailable', reason: 'error' } });
  });

  it('export: NDJSON of every job in the state, oldest first, filtered like list', async () => {
    const [failed, digest] = await Promise.all([runCli(['export', 'emails', 'failed'], env), runCli(['export', 'emails', 'waiting', '--name', 'digest'], env)]);
    expect(failed.code).toBe(0);
    expect(parseNdjson(failed.stdout).map((j) => j.id)).toEqual(dead);
    expect(parseNdjson(digest.stdout).map((j) => [j.id, j.name, j.state])).toEqual(waiting.slice(3).map((id) => [id, 'digest', 'waiting']));
    expect(failed.stderr).toBe('');
  });

  it('an unknown queue or job: a clear message naming what exists, exit 1', async () => {
    const [queue, job] = await Promise.all([runCli(['counts', 'emials'], env), runCli(['show', 'emails', 'no-such-id'], env)]);
    expect(queue.code).toBe(1);
    expectCleanError(queue, /no queue "emials" under prefix "cli-\w+": queues there: billing, emails/);
    expect(queue.stdout).toBe('');
    expect(job.code).toBe(1);
    expectCleanError(job, /no job "no-such-id" in queue "emails"/);
  });
});
