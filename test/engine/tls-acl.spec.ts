import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createClient } from 'redis';
import request from 'supertest';
import { Queue, QueueDashboardModule, QueueEvents, QueueModule, RedisStore, Worker, listQueues, type QueueEvent } from '../../lib/index.js';
import { createAclUsers } from '../helpers/acl-users.js';
import { logRecorder } from '../helpers/log-recorder.js';
import { uniquePrefix } from '../helpers/store.js';
import { TlsRedis } from '../helpers/tls-redis.js';
import { waitFor } from '../helpers/wait-for.js';
import { cliEnv, runCli } from '../cli/cli.js';

/** The ready ACL line of docs/operations/connections.md, its rules after the password, for `prefix` instead of `spool`. */
function documentedRules(prefix: string): string[] {
  const page = readFileSync(new URL('../../docs/operations/connections.md', import.meta.url), 'utf8');
  const line = page.split('\n').find((l) => l.startsWith('ACL SETUSER spool-app reset on >CHANGE-ME '));
  if (!line) throw new Error('docs/operations/connections.md has no "ACL SETUSER spool-app" line');
  return line
    .split(' ')
    .slice(5)
    .map((rule) => rule.replace('~{spool:*', `~{${prefix}:*`).replace('&spool:*', `&${prefix}:*`));
}

/**
 * A managed Redis as production reaches it: TLS only, a private CA, client
 * certificates required, and an ACL user with the documented least-privilege
 * line (its prefix's keys and channels, no INFO, CONFIG or CLIENT). Every
 * surface connects with the connection objects: the engine with { host,
 * port, username, password, tls }, the Nest module with a rediss:// URL and
 * tls, the CLI with --tls-* flags.
 */
describe('TLS with a client certificate and a least-privilege ACL user', () => {
  let server: TlsRedis;
  let user: { username: string; password: string };
  const prefix = uniquePrefix('tlsacl');

  beforeAll(async () => {
    server = await TlsRedis.start();
    const urls = await createAclUsers(server, { 'spool-app': documentedRules(prefix) }, { admin: server.clientOptions });
    const url = new URL(urls['spool-app']);
    user = { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  });
  afterAll(async () => {
    await server?.dispose();
  });
  /** What the ACL refused since the last call (ACL LOG), INFO, CONFIG and CLIENT aside: each entry is a command missing from the documented line. */
  async function deniedSinceLast(): Promise<string[]> {
    const admin = createClient({ url: server.url, ...server.clientOptions, RESP: 2 });
    await admin.connect();
    try {
      const log = (await admin.sendCommand(['ACL', 'LOG'])) as string[][];
      await admin.sendCommand(['ACL', 'LOG', 'RESET']);
      return log
        .map((entry) => Object.fromEntries(entry.flatMap((v, i) => (i % 2 === 0 ? [[String(v), entry[i + 1]]] : []))) as Record<string, unknown>)
        .map((fields) => `${String(fields.reason)} ${String(fields.object)}`)
        .filter((d) => !/^command (info|config|client)\b/.test(d));
    } finally {
      await admin.close();
    }
  }

  const connection = (): { host: string; port: number; username: string; password: string; tls: TlsRedis['tls'] & { servername: string } } => ({
    host: '127.0.0.1',
    port: server.port,
    ...user,
    tls: { ...server.tls, servername: 'localhost' },
  });

  it('producer, worker and QueueEvents over { host, port, username, password, tls }', async () => {
    const rec = logRecorder();
    const store = new RedisStore({ ...connection(), prefix, logger: rec.logger });
    const queue = new Queue<number, number>('work', { store });
    const events: QueueEvent[] = [];
    let reader: QueueEvents | undefined;
    let worker: Worker<number, number> | undefined;
    try {
      await store.connect();
      reader = new QueueEvents(queue.name, { store, blockMs: 200 });
      reader.on('event', (e) => events.push(e));
      await reader.ready();
      worker = new Worker<number, number>(queue.name, async (job) => job.data * 2, { store, logger: rec.logger });
      const jobs = await queue.addBulk([1, 2, 3].map((n) => ({ name: 'double', data: n, opts: { jobId: `n${n}` } })));
      const delayed = await queue.add('double', 5, { delay: 50 });
      for (const job of [...jobs, delayed]) expect(await queue.waitFor(job.id, { timeout: 10_000 })).toBe(job.data * 2);
      await waitFor(() => events.filter((e) => e.event === 'completed').length === 4, { message: 'four completed events' });
      expect(await queue.getCounts()).toMatchObject({ completed: 4, waiting: 0, active: 0 });
      expect(await listQueues(store)).toEqual(['work']);
      expect(await queue.verify()).toEqual([]);
      expect(rec.at('error')).toEqual([]);
      // The start-up checks could not read INFO or CONFIG: one warning, nothing fails.
      expect(rec.at('warn')).toEqual([expect.stringContaining('cannot read maxmemory-policy: INFO and CONFIG are not allowed for this user')]);
    } finally {
      await worker?.close();
      await reader?.close();
      await store.disconnect();
    }
    expect(await deniedSinceLast()).toEqual([]);
  });

  it('a client without a certificate, or one that does not trust the CA, cannot connect', async () => {
    const { cert: _cert, key: _key, ...caOnly } = server.tls;
    for (const tls of [caOnly, { cert: server.tls.cert, key: server.tls.key }]) {
      const store = new RedisStore({ ...connection(), tls, prefix, logger: logRecorder().logger });
      await expect(store.connect()).rejects.toThrow(/Redis is unreachable/);
      await store.disconnect();
    }
  });

  it('the dashboard (QueueModule.forRootAsync over a rediss:// URL with tls) and the CLI (--tls-* flags) read the queue', async () => {
    const url = `rediss://${encodeURIComponent(user.username)}:${encodeURIComponent(user.password)}@localhost:${server.port}`;
    @Module({
      imports: [QueueModule.forRootAsync({ useFactory: () => ({ connection: { url, tls: server.tls, prefix } }) }), QueueModule.registerQueue('work'), QueueDashboardModule.forRoot({ path: '/ops', readOnly: true })],
    })
    class App {}
    const app = await NestFactory.create(App, { logger: false });
    try {
      await app.init();
      const page = await request(app.getHttpServer()).get('/ops').expect(200);
      expect(page.text).toContain('work');
      const failed = await request(app.getHttpServer()).get('/ops/default/work?state=completed').expect(200);
      expect(failed.text).toContain('n1');
    } finally {
      await app.close();
    }
    const env = cliEnv(prefix, { REDIS_URL: url, SPOOL_TLS_CA: server.certs.caFile, SPOOL_TLS_CERT: server.certs.certFile, SPOOL_TLS_KEY: server.certs.keyFile });
    const counts = await runCli(['counts', '--json'], env);
    expect(counts.stderr).toMatch(/^(spool: warning: [^\n]*\n)*$/);
    expect(JSON.parse(counts.stdout)).toEqual([expect.objectContaining({ queue: 'work', counts: expect.objectContaining({ completed: 4 }) })]);
    const show = await runCli(['show', 'work', 'n2', '--json'], env);
    expect(JSON.parse(show.stdout)).toMatchObject({ id: 'n2', result: 4 });
    const noCa = await runCli(['counts'], cliEnv(prefix, { REDIS_URL: url }));
    expect(noCa.code).toBe(1);
    expect(noCa.stderr).toMatch(/cannot reach Redis at rediss:\/\/spool-app:\*\*\*@localhost/);
    expect(await deniedSinceLast()).toEqual([]);
  });
});
