import { Queue, type RedisStore } from '../../lib/index.js';
import { testStore, uniquePrefix, redisUrl } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { cliEnv, collect, parseNdjson, runCli, startCli } from './cli.js';

describe('spool CLI, live: events and watch', () => {
  let store: RedisStore;
  let env: NodeJS.ProcessEnv;
  let queue: Queue;

  beforeEach(async () => {
    const prefix = uniquePrefix('cli');
    store = await testStore(redisUrl(), prefix);
    env = cliEnv(prefix);
    queue = new Queue('emails', { store });
    await queue.add('seed', 0);
  });
  afterEach(async () => {
    await store.disconnect();
  });

  it('events: tails new events as NDJSON, stops after --count', async () => {
    const child = startCli(['events', 'emails', '--json', '--count', '3'], env);
    child.stdin.end();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const done = collect(child);
    await waitFor(() => stderr.includes('watching events of emails'), { timeout: 15_000, message: 'the CLI to start reading' });
    const [a, b] = await queue.addBulk([{ name: 'welcome', data: 1 }, { name: 'digest', data: 2 }]);
    await queue.cancel(a!.id);
    const run = await done;
    expect(run.code).toBe(0);
    expect(parseNdjson(run.stdout).map((e) => [e.event, e.jobId])).toEqual([
      ['added', a!.id],
      ['added', b!.id],
      ['cancelled', a!.id],
    ]);
  });

  it('events: human lines from the start of the stream; Ctrl-C (SIGINT) ends it with exit 0', async () => {
    const child = startCli(['events', 'emails', '--from', '0'], env);
    child.stdin.end();
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const done = collect(child);
    await waitFor(() => /added\s+\S+\s+name=seed state=waiting/.test(stdout), { timeout: 15_000, message: 'the seed event' });
    child.kill('SIGINT');
    const run = await done;
    expect(run.code).toBe(0);
    expect(stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3}\s+added\s+/m);
  });

  it('watch: counts every interval; JSON lines for scripts, tables otherwise (no redraw codes off a terminal)', async () => {
    const [json, human] = await Promise.all([
      runCli(['watch', '--json', '--count', '2', '--interval', '100ms'], env),
      runCli(['watch', 'emails', '--count', '2', '--interval', '100ms'], env),
    ]);
    expect(json.code).toBe(0);
    const ticks = parseNdjson(json.stdout);
    expect(ticks).toHaveLength(2);
    expect(ticks[0]).toMatchObject({ queues: [{ queue: 'emails', paused: false, counts: expect.objectContaining({ waiting: 1 }) }] });
    expect(human.code).toBe(0);
    expect(human.stdout.match(/│ emails\s+│ running\s+│ 1\s+│/g)).toHaveLength(2);
    expect(human.stdout).not.toContain('\x1b[');
  });
});
