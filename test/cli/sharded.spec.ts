import { Queue, type RedisStore } from '../../lib/index.js';
import { redisUrl, testStore, uniquePrefix } from '../helpers/store.js';
import { cliEnv, expectCleanError, runCli } from './cli.js';

describe('spool CLI on a sharded queue: its stored placement says how many shards', () => {
  let store: RedisStore;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    const prefix = uniquePrefix('cli-shards');
    store = await testStore(redisUrl(), prefix);
    env = cliEnv(prefix);
    await new Queue('orders', { store, shards: 3 }).addBulk(Array.from({ length: 9 }, (_, i) => ({ name: 'ship', data: { i } })));
    await new Queue('orders', { store, shards: 3 }).add('later', { i: 9 }, { delay: 3_600_000 });
    await new Queue('emails', { store }).add('welcome', { to: 'ada@example.com' });
  });
  afterAll(async () => {
    await store.disconnect();
  });

  it('queues lists it once, by its own name, not its shards', async () => {
    const run = await runCli(['queues', '--json'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(['emails', 'orders']);
  });

  it('counts sees it whole without --shards, alone and among every queue', async () => {
    const [one, all] = await Promise.all([runCli(['counts', 'orders', '--json'], env), runCli(['counts', '--json'], env)]);
    expect(JSON.parse(one.stdout)).toMatchObject({ queue: 'orders', counts: { waiting: 9, delayed: 1 } });
    expect(JSON.parse(all.stdout)).toEqual([
      expect.objectContaining({ queue: 'emails', counts: expect.objectContaining({ waiting: 1 }) }),
      expect.objectContaining({ queue: 'orders', counts: expect.objectContaining({ waiting: 9, delayed: 1 }) }),
    ]);
  });

  it('acts on every shard without --shards (promote), and refuses a --shards the placement contradicts', async () => {
    const promoted = await runCli(['promote', 'orders', '--all', '--yes', '--json'], env);
    expect(promoted.code).toBe(0);
    expect((await new Queue('orders', { store, shards: 3 }).getCounts()).waiting).toBe(10);
    const wrong = await runCli(['counts', 'orders', '--shards', '2'], env);
    expect(wrong.code).toBe(1);
    expectCleanError(wrong, /sharded over 3 shards, not 2: pass shards: 3/);
  });
});
