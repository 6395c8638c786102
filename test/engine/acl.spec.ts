import { listQueues, Queue, QueueEvents, RedisStore, type QueueEvent } from '../../lib/index.js';
import { allRules, createAclUsers, prefixRules } from '../helpers/acl-users.js';
import { logRecorder } from '../helpers/log-recorder.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * Managed Redis services restrict INFO, CONFIG and CLIENT, each in its own
 * way, and shared ones confine a user to its own keys and channels. The
 * startup checks (maxmemory-policy, version) once ended the process with an
 * unhandled NOPERM; every check now degrades to one warning that names what
 * it could not read, and jobs flow under each of these users.
 */
describe('restricted ACL users', () => {
  let server: RedisServer;
  let urls: Record<'noInfo' | 'noConfig' | 'noClient' | 'noServerCommands' | 'prefixOnly', string>;
  const prefix = uniquePrefix('acl');
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => void unhandled.push(reason);

  beforeAll(async () => {
    // A policy Spool warns about, so that reading it (or not) shows in the lines.
    server = await RedisServer.start({ args: ['--maxmemory-policy', 'allkeys-lru'] });
    urls = await createAclUsers(server, {
      noInfo: [...allRules(), '-info'],
      noConfig: [...allRules(), '-config'],
      noClient: [...allRules(), '-client'],
      noServerCommands: [...allRules(), '-info', '-config', '-client'],
      prefixOnly: prefixRules(prefix),
    });
    process.on('unhandledRejection', onUnhandled);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await server?.dispose();
  });

  const POLICY = 'Redis maxmemory-policy is "allkeys-lru": under memory pressure Redis may evict job keys and lose jobs; set it to "noeviction" (CONFIG SET maxmemory-policy noeviction)';

  const cases: [keyof typeof urls, string[]][] = [
    // INFO refused: CONFIG GET still reads the policy, HELLO the version.
    ['noInfo', [POLICY]],
    // CONFIG refused: INFO reads both.
    ['noConfig', [POLICY]],
    ['noClient', [POLICY]],
    // HELLO (always allowed to a user that may connect) still reads the version.
    ['noServerCommands', ['cannot read maxmemory-policy: INFO and CONFIG are not allowed for this user (Spool needs "noeviction": make sure the server has it, or Redis may evict job keys and lose jobs)']],
    ['prefixOnly', [POLICY]],
  ];

  it.each(cases)('%s: connects with one warning per check it could not make, adds and processes a job, and reads the queue', async (user, warnings) => {
    const rec = logRecorder();
    const store = new RedisStore({ url: urls[user] }, { prefix, logger: rec.logger });
    const queue = new Queue<number, number>(`work-${user}`, { store });
    const events: QueueEvent[] = [];
    let reader: QueueEvents | undefined;
    try {
      await store.connect();
      expect(rec.at('warn')).toEqual(warnings);
      reader = new QueueEvents(queue.name, { store, blockMs: 200 });
      reader.on('event', (e) => events.push(e));
      await reader.ready();
      const { Worker } = await import('../../lib/index.js');
      const worker = new Worker<number, number>(queue.name, async (job) => job.data * 2, { store, logger: rec.logger });
      try {
        const job = await queue.add('double', 21);
        expect(await queue.waitFor(job.id, { timeout: 10_000 })).toBe(42);
        await waitFor(async () => (await queue.getWorkers()).length === 1, { message: 'the worker listed' });
        await waitFor(() => events.some((e) => e.event === 'completed'), { message: 'the completed event' });
      } finally {
        await worker.close();
      }
      expect(await queue.getCounts()).toMatchObject({ completed: 1 });
      expect((await queue.getMetrics()).lastHour.completed).toBe(1);
      expect(await listQueues(store)).toContain(queue.name);
      expect(await queue.verify()).toEqual([]);
      expect(rec.at('error')).toEqual([]);
      expect(rec.at('warn')).toEqual(warnings);
    } finally {
      await reader?.close();
      await store.disconnect();
    }
    expect(unhandled).toEqual([]);
  });

  it('requireNoEviction refuses to start when the policy cannot be read, and says why', async () => {
    const store = new RedisStore({ url: urls.noServerCommands }, { prefix, logger: logRecorder().logger, requireNoEviction: true });
    try {
      await expect(store.connect()).rejects.toThrow(
        'cannot read maxmemory-policy: INFO and CONFIG are not allowed for this user; RedisStore options.requireNoEviction refuses to run without knowing it is "noeviction": grant +info or +config|get, or drop requireNoEviction',
      );
    } finally {
      await store.disconnect();
    }
    expect(unhandled).toEqual([]);
  });
});
