import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Test } from '@nestjs/testing';
import { NatsNotify, Queue, QueueModule, RedisStore, Worker, getConnectionToken } from '../../lib/index.js';
import { NatsServer } from '../helpers/nats-server.js';
import { redisUrl, silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

const SECTION = readFileSync(new URL('../../docs/operations/nats.md', import.meta.url), 'utf8');

/** docs/operations/nats.md "Notify transports: Redis pub/sub or NATS": its examples as written (URLs from the test, a prefix of its own). */
describe('README notify transports', () => {
  let nats: NatsServer;
  let process: { env: Record<string, string> };
  beforeAll(async () => {
    nats = await NatsServer.start();
    process = { env: { NATS_URL: nats.url, REDIS_URL: redisUrl() } };
  });
  afterAll(async () => {
    await nats?.dispose();
  });

  it('shows the option names NatsNotify takes and the bench command that exists', () => {
    expect(SECTION).toContain("new NatsNotify({ servers: process.env.NATS_URL!, kvBucket: 'spool_hints' })");
    expect(SECTION).toContain('npm run bench:wake');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['bench:wake']).toBeDefined();
    expect(() => new NatsNotify({ servers: 'nats://x', kvBucket: 'b', subjectPrefix: 'p', connectTimeout: 1, logger: silentLogger })).not.toThrow();
  });

  it('engine example, as written', async () => {
    const prefix = uniquePrefix('readme-nats');
    const notify = new NatsNotify({ servers: process.env.NATS_URL!, kvBucket: 'spool_hints' });
    const store = new RedisStore({ url: process.env.REDIS_URL!, prefix, notify });
    await store.connect();
    await notify.connect(); // optional: fail now with NatsUnavailableError rather than at the first worker
    const seen: unknown[] = [];
    const worker = new Worker('emails', async (job) => void seen.push(job.data), { store, pollInterval: 600_000, logger: silentLogger });
    await worker.run();
    await new Queue('emails', { store }).add('send', { to: 'ada' });
    await waitFor(() => seen.length === 1, { message: 'the job, woken over NATS' });
    await worker.close();
    await store.disconnect();
    await notify.close();
    expect(seen).toEqual([{ to: 'ada' }]);
  });

  it('Nest example, as written', async () => {
    const module = QueueModule.forRoot({
      connection: { url: process.env.REDIS_URL!, prefix: 'app' },
      notify: { nats: { servers: process.env.NATS_URL!, kvBucket: 'spool_hints' } },
    });
    const app = await Test.createTestingModule({ imports: [module] }).compile();
    await app.init();
    try {
      expect(app.get<RedisStore>(getConnectionToken()).notify).toBeInstanceOf(NatsNotify);
    } finally {
      await app.close();
    }
  });
});
