import { Queue as BullQueue } from 'bullmq';
import { Queue, type RedisStore } from '../../lib/index.js';
import { cliEnv, expectCleanError, runCli } from '../cli/cli.js';
import { createAclUsers } from '../helpers/acl-users.js';
import { testStore, uniquePrefix } from '../helpers/store.js';
import { TlsRedis } from '../helpers/tls-redis.js';

const DAY = 24 * 3600_000;

/**
 * `spool import bullmq` reading BullMQ's Redis over TLS with a client
 * certificate (--from-tls-ca, --from-tls-cert, --from-tls-key) as an ACL user
 * limited to BullMQ's keys (in the --from-url), writing to the run's plain
 * Redis (--url through REDIS_URL). The jobs are written by real BullMQ.
 */
describe('spool import bullmq from a TLS Redis', () => {
  let server: TlsRedis;
  let bull: BullQueue;
  let store: RedisStore;
  let fromUrl: string;
  const bullPrefix = uniquePrefix('bulltls');

  beforeAll(async () => {
    server = await TlsRedis.start();
    // The importer only reads BullMQ's keys (no --remove-imported): a user that can reach nothing else.
    const urls = await createAclUsers(server, { importer: ['+@all', `~${bullPrefix}:*`] }, { admin: server.clientOptions });
    fromUrl = urls.importer;
    bull = new BullQueue('mail', {
      prefix: bullPrefix,
      connection: { host: '127.0.0.1', port: server.port, tls: { ...server.tls, servername: 'localhost' }, maxRetriesPerRequest: null },
    });
    await bull.addBulk([{ name: 'welcome', data: { to: 'a@example.com' } }, { name: 'welcome', data: { to: 'b@example.com' } }]);
    await bull.add('digest', { to: 'c@example.com' }, { delay: DAY, jobId: 'digest-c' });
  });
  afterAll(async () => {
    await bull?.close();
    await store?.disconnect();
    await server?.dispose();
  });

  const tlsFlags = (): string[] => ['--from-tls-ca', server.certs.caFile, '--from-tls-cert', server.certs.certFile, '--from-tls-key', server.certs.keyFile];

  it('copies the jobs with the --from-tls-* files and the user in --from-url', async () => {
    const prefix = uniquePrefix('spool');
    const run = await runCli(['import', 'bullmq', 'mail', '--from-url', fromUrl, ...tlsFlags(), '--bull-prefix', bullPrefix, '--json'], cliEnv(prefix));
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout) as { queues: { states: Record<string, { imported: number }> }[] };
    expect(report.queues[0]!.states.wait).toMatchObject({ imported: 2 });
    expect(report.queues[0]!.states.delayed).toMatchObject({ imported: 1 });
    store = await testStore(undefined, prefix);
    const spool = new Queue('mail', { store });
    expect(await spool.getCounts()).toMatchObject({ waiting: 2, delayed: 1 });
    expect((await spool.getJob('digest-c'))?.data).toEqual({ to: 'c@example.com' });
    // BullMQ's side was only read.
    expect(await bull.getJobCounts('wait', 'delayed')).toEqual({ wait: 2, delayed: 1 });
  });

  it('names the --from- flag at fault', async () => {
    const prefix = uniquePrefix('spool');
    const args = ['import', 'bullmq', 'mail', '--bull-prefix', bullPrefix];
    const halfCert = await runCli([...args, '--from-url', fromUrl, '--from-tls-ca', server.certs.caFile, '--from-tls-cert', server.certs.certFile], cliEnv(prefix));
    expect(halfCert.code).toBe(1);
    expectCleanError(halfCert, /--from-tls-key is missing: a client certificate needs both --from-tls-cert and --from-tls-key/);
    const plainUrl = await runCli([...args, '--from-url', `redis://127.0.0.1:${server.port}`, ...tlsFlags()], cliEnv(prefix));
    expect(plainUrl.code).toBe(1);
    expectCleanError(plainUrl, /--from-tls-ca, --from-tls-cert and --from-tls-key need a rediss:\/\/ URL/);
    const noCert = await runCli([...args, '--from-url', fromUrl, '--from-tls-ca', server.certs.caFile], cliEnv(prefix));
    expect(noCert.code).toBe(1);
    expectCleanError(noCert, /cannot reach BullMQ's Redis at rediss:\/\/importer:\*\*\*@127\.0\.0\.1:\d+ \(.*certificate required.*\): check that it runs, and --from-url or BULLMQ_URL/);
    const refused = await runCli([...args, '--from-url', 'redis://127.0.0.1:1'], cliEnv(prefix));
    expect(refused.code).toBe(1);
    expectCleanError(refused, /cannot reach BullMQ's Redis at redis:\/\/127\.0\.0\.1:1 \(connect ECONNREFUSED/);
    const none = await runCli(args, cliEnv(prefix));
    expect(none.code).toBe(2);
    expectCleanError(none, /give one of --from-url \(BULLMQ_URL\) or --from-sentinel \(BULLMQ_SENTINEL\)/);
  });
});
