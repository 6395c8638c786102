import { hostname } from 'node:os';
import { Worker, type RedisStore } from '../../lib/index.js';
import { redisUrl, silentLogger, testStore, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { cliEnv, runCli } from './cli.js';

describe('spool workers (the built bin against real Redis)', () => {
  let store: RedisStore;
  let env: NodeJS.ProcessEnv;
  let worker: Worker<unknown, string> | undefined;

  beforeEach(async () => {
    const prefix = uniquePrefix('cli-workers');
    store = await testStore(redisUrl(), prefix);
    env = cliEnv(prefix);
  });
  afterEach(async () => {
    await worker?.close();
    await store.disconnect();
  });

  it('prints each worker of the queue with its host, pid and slots, or says there is none', async () => {
    const none = await runCli(['workers', 'staffed'], env);
    expect(none).toMatchObject({ code: 0, stdout: 'no worker of queue "staffed" sent a heartbeat in the last 15 s\n' });

    const w = new Worker<unknown, string>('staffed', async () => 'ok', { store, concurrency: 4, logger: silentLogger });
    worker = w;
    await w.run();
    await waitFor(async () => (await runCli(['workers', 'staffed', '--json'], env)).stdout.includes(w.id), { message: 'the worker listed' });
    const [human, json] = await Promise.all([runCli(['workers', 'staffed'], env), runCli(['workers', 'staffed', '--json'], env)]);
    const row = human.stdout.split('\n').find((l) => l.includes(w.id))!;
    expect(row.split('│').map((c) => c.trim()).slice(1, 5)).toEqual([w.id, hostname(), String(process.pid), '0/4']);
    expect(human.stdout).toMatch(/│ worker\s+│ host\s+│ pid\s+│ held\s+│ started\s+│ seen/);
    expect(JSON.parse(json.stdout)).toEqual([expect.objectContaining({ id: w.id, hostname: hostname(), pid: process.pid, concurrency: 4, running: 0, paused: false })]);

    // worker.pause(): the list says so at once.
    await w.pause();
    await waitFor(async () => (await runCli(['workers', 'staffed'], env)).stdout.includes('0/4 paused'), { message: 'the worker listed as paused' });
    expect(JSON.parse((await runCli(['workers', 'staffed', '--json'], env)).stdout)).toEqual([expect.objectContaining({ id: w.id, paused: true })]);
  });
});
