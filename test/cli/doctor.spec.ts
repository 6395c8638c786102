import { Queue, RedisStore } from '../../lib/index.js';
import { checkDeployment } from '../../lib/engine/index.js';
import { allRules, createAclUsers, prefixRules } from '../helpers/acl-users.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { silentLogger, uniquePrefix } from '../helpers/store.js';
import { cliEnv, expectCleanError, runCli } from './cli.js';

/**
 * spool doctor against a private redis-server the file starts with a policy
 * that loses jobs (allkeys-lru), ACL users with and without a queue's
 * rights, a queue with an active job and no worker, and an event stream at
 * its maxLen: each shows as a FAIL or warn line with its fix; exit 1.
 */
describe('spool doctor', () => {
  let server: RedisServer;
  let store: RedisStore;
  const prefix = uniquePrefix('doctor');

  beforeAll(async () => {
    server = await RedisServer.start({ args: ['--maxmemory-policy', 'allkeys-lru'] });
    await createAclUsers(server, { scoped: prefixRules(prefix), wrongPrefix: prefixRules('other'), noScripts: [...allRules(), '-@scripting'] });
    store = new RedisStore({ url: server.url }, { prefix, logger: silentLogger });
    await store.connect();
  });
  afterAll(async () => {
    await store?.disconnect();
    await server?.dispose();
  });

  const env = (): NodeJS.ProcessEnv => ({ ...cliEnv(prefix), REDIS_URL: server.url });

  it('checks server, ACL users and queues; prints each problem with its fix and exits 1', async () => {
    const stuck = new Queue('stuck', { store });
    await stuck.add('work', {});
    await store.claim('stuck', { count: 1, workerId: 'gone', lockMs: 60_000 }); // active, no worker
    const chatty = new Queue('chatty', { store });
    await chatty.configure({ events: { maxLen: 10 } });
    for (let i = 0; i < 12; i++) await chatty.add('ping', { i }, { delay: 3_600_000 });

    const run = await runCli(['doctor', '--acl-user', 'worker=scoped', '--acl-user', 'producer=wrongPrefix', '--acl-user', 'ops=noScripts'], env());
    expect(run.code).toBe(1);
    expectCleanError(run, /doctor found \d+ problem\(s\)/);
    const lines = run.stdout.split('\n');
    const line = (re: RegExp): string => lines.find((l) => re.test(l)) ?? `(no line matching ${re})`;
    expect(line(/version/)).toMatch(/^ok\s+version\s+Redis [78]\./);
    expect(line(/eviction/)).toMatch(/^FAIL\s+eviction\s+maxmemory-policy is "allkeys-lru"/);
    expect(run.stdout).toContain('fix: CONFIG SET maxmemory-policy noeviction');
    expect(line(/clock/)).toMatch(/^ok\s+clock\s+Redis clock \d+ ms (ahead of|behind) this host/);
    expect(line(/acl worker/)).toMatch(/^ok\s+acl worker\s+user "scoped" has what a worker needs/);
    expect(line(/acl producer/)).toMatch(/^FAIL\s+acl producer\s+user "wrongPrefix" may not: EVALSHA: .*HSET/);
    expect(line(/acl ops/)).toMatch(/^FAIL\s+acl ops\s+user "noScripts" may not: EVALSHA: [^;]*; SCRIPT: /);
    expect(line(/queue stuck/)).toMatch(/^FAIL\s+queue stuck\s+1 active job\(s\) and no worker heartbeat/);
    expect(line(/queue chatty/)).toMatch(/^warn\s+queue chatty\s+event stream at \d+ of maxLen 10 events/);
    expect(run.stdout).toMatch(/\n4 problem\(s\), 1 warning\(s\)\n$/);

    const json = await runCli(['doctor', '--json'], env());
    expect(json.code).toBe(1);
    const findings = JSON.parse(json.stdout) as { check: string; severity: string }[];
    expect(findings.filter((f) => f.severity === 'problem').map((f) => f.check)).toEqual(['eviction', 'queue stuck']);
  });

  it('exits 0 on a healthy deployment (the run\'s Redis, noeviction); the engine call and usage errors', async () => {
    const healthy = uniquePrefix('healthy');
    const ok = await runCli(['doctor'], cliEnv(healthy));
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok\s+eviction\s+maxmemory-policy noeviction$/m);
    expect(ok.stdout).toMatch(/\n0 problem\(s\), \d+ warning\(s\)\n$/);
    const findings = await checkDeployment(store, { maxSkewMs: 1000 });
    expect(findings.find((f) => f.check === 'eviction')?.severity).toBe('problem');
    expect((await runCli(['doctor', '--max-skew', 'soon'], env())).code).toBe(2);
    const badRole = await runCli(['doctor', '--acl-user', 'admin=x'], env());
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/role one of producer, worker, ops/);
  });
});
