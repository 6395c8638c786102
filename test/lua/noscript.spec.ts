import { Queue, type RedisStore } from '../../lib/index.js';
import { testStore, uniquePrefix } from '../helpers/store.js';
import { ownRedis } from '../chaos/support/own-redis.js';
import { commandOf } from '../helpers/redis-access.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Scripts run as one function library by FCALL (lib/store/function-library);
 * a server that lost it (FUNCTION FLUSH, a restart without persistence)
 * gets the same calls by EVALSHA, and EVAL after SCRIPT FLUSH, while the
 * library is loaded again: callers never see either loss.
 */
describe('script and function library loss', () => {
  // A server of its own: flushes here must not reach other suites, nor their reloads this one.
  let own: Awaited<ReturnType<typeof ownRedis>>;
  let store: RedisStore;

  beforeAll(async () => {
    own = await ownRedis();
  });
  afterAll(async () => {
    await own.dispose();
  });
  beforeEach(async () => {
    store = await testStore(own.url);
  });
  afterEach(async () => {
    await store.disconnect();
  });

  const redis = () => commandOf(store, 'test');
  /** Calls of each way of running a script so far (INFO commandstats). */
  async function calls(): Promise<{ fcall: number; evalsha: number; eval: number }> {
    const info = String(await redis().sendCommand(['INFO', 'commandstats']));
    const of = (cmd: string) => Number(new RegExp(`^cmdstat_${cmd}:calls=(\\d+)`, 'm').exec(info)?.[1] ?? 0);
    return { fcall: of('fcall'), evalsha: of('evalsha'), eval: of('eval') };
  }
  const libraryLoaded = async () => ((await redis().sendCommand(['FUNCTION', 'LIST', 'LIBRARYNAME', 'spool_*'])) as unknown[]).length > 0;

  it('runs scripts by FCALL once connected', async () => {
    const queue = new Queue('fcall', { store });
    expect(await libraryLoaded()).toBe(true);
    const before = await calls();
    await queue.add('a', 1);
    const after = await calls();
    expect(after.fcall).toBeGreaterThan(before.fcall);
    expect(await queue.getCounts()).toMatchObject({ waiting: 1 });
  });

  it('runs scripts by EVALSHA for a user the server does not let load functions (an ACL without FUNCTION)', async () => {
    const user = uniquePrefix('nofn');
    await redis().sendCommand(['ACL', 'SETUSER', user, 'on', '>pw', '~*', '&*', '+@all', '-function']);
    const url = new URL(own.url);
    url.username = user;
    url.password = 'pw';
    const limited = await testStore(url.toString());
    try {
      const queue = new Queue('acl', { store: limited });
      const before = await calls();
      await queue.add('a', 1);
      const [record] = (await limited.claim('acl', { count: 1, workerId: 'w', lockMs: 10_000 })).jobs;
      await limited.complete('acl', { id: record!.id, token: record!.token! }, 'null', { count: 0, workerId: 'w', lockMs: 1 });
      const after = await calls();
      expect(after.evalsha - before.evalsha).toBeGreaterThanOrEqual(2);
      expect((await queue.getJob(record!.id))?.state).toBe('completed');
    } finally {
      await limited.disconnect();
      await redis().sendCommand(['ACL', 'DELUSER', user]);
    }
  });

  it('goes on by EVALSHA, then EVAL, after FUNCTION FLUSH and SCRIPT FLUSH, and loads the library again', async () => {
    const queue = new Queue('noscript', { store });
    await queue.add('before', 1);
    await redis().sendCommand(['FUNCTION', 'FLUSH']);
    await redis().sendCommand(['SCRIPT', 'FLUSH']);
    const lost = await calls();
    const job = await queue.add('after', 2);
    const fallback = await calls();
    expect(fallback.eval).toBeGreaterThan(lost.eval); // FCALL: not found; EVALSHA: NOSCRIPT; EVAL ran it
    await waitFor(libraryLoaded, { timeout: 5000, interval: 10, message: 'library loaded again' });
    await waitFor(async () => {
      const before = await calls();
      await queue.getCounts();
      return (await calls()).fcall > before.fcall;
    }, { timeout: 5000, interval: 10, message: 'calls by FCALL again' });
    const claimed = await store.claim('noscript', { count: 2, workerId: 'w', lockMs: 10_000 }).then((o) => o.jobs);
    expect(claimed.map((r) => r.name)).toEqual(['before', 'after']);
    await redis().sendCommand(['FUNCTION', 'FLUSH']);
    for (const r of claimed) await store.complete('noscript', { id: r.id, token: r.token! }, 'null', { count: 0, workerId: 'w', lockMs: 1 });
    expect((await queue.getJob(job.id))?.state).toBe('completed');
    expect(await queue.verify()).toEqual([]);
  });
});
