import 'reflect-metadata';
import { Body, Controller, Get, Module, Post, ServiceUnavailableException, type DynamicModule, type INestApplication } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import request from 'supertest';
import { getConnectionToken, InjectQueue, OnJob, RedisStore, Processor, Queue, QueueModule, SpoolExceptionFilter, SpoolHealth, SpoolWorkers, type ActiveJob } from '../../lib/index.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { uniquePrefix } from '../helpers/store.js';

/**
 * docs/reference/errors.md and docs/operations/deployment.md "Errors over HTTP" and "Deployment", as written there:
 * the role switch becomes a function of the role (the page reads
 * process.env.ROLE once), REDIS_URL and the prefix come from the test.
 */
@Processor('emails')
class EmailProcessor {
  @OnJob('send')
  send(job: ActiveJob<{ to: string }>) {
    return `sent to ${job.data.to}`;
  }
}

@Controller('signup')
class SignupController {
  constructor(@InjectQueue('emails') private readonly emails: Queue) {}
  @Post()
  async signup(@Body() body: { to: string }) {
    return { id: (await this.emails.add('send', body)).id };
  }
}

@Controller('health')
export class HealthController {
  constructor(private readonly health: SpoolHealth) {}

  @Get()
  async ready() {
    const report = await this.health.check(); // { ok, connections: { default: { ok, latencyMs } } }
    if (!report.ok) throw new ServiceUnavailableException(report);
    return report;
  }
}

function appModule(role: 'api' | 'worker' | 'all', url: string, prefix: string): DynamicModule {
  @Module({})
  class AppModule {}
  return {
    module: AppModule,
    imports: [
      QueueModule.forRoot({ connection: { url, prefix } }),
      QueueModule.registerQueue('emails'),
    ],
    controllers: role === 'worker' ? [] : [SignupController, HealthController],
    providers: role === 'api' ? [] : [EmailProcessor],
  };
}

describe('README: Errors over HTTP and Deployment', () => {
  let redis: RedisServer;
  const apps: INestApplication[] = [];
  beforeAll(async () => {
    redis = await RedisServer.start();
  });
  afterAll(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()));
    await redis.dispose();
  });

  it('an API process runs no worker, a worker process runs the jobs, readiness follows Redis', async () => {
    const prefix = uniquePrefix('deploy');
    const api = await NestFactory.create(appModule('api', redis.url, prefix), { logger: false, abortOnError: false });
    api.useGlobalFilters(new SpoolExceptionFilter(api.getHttpAdapter()));
    await api.init();
    apps.push(api);
    expect(api.get(SpoolWorkers).all()).toEqual([]);

    const worker = await NestFactory.createApplicationContext(appModule('worker', redis.url, prefix), { logger: false, abortOnError: false });
    apps.push(worker as INestApplication);
    expect(worker.get(SpoolWorkers).all()).toHaveLength(1);

    const http = request(api.getHttpServer());
    const { id } = (await http.post('/signup').send({ to: 'ada@example.com' }).expect(201)).body as { id: string };
    const queue = new Queue('emails', { store: api.get<RedisStore>(getConnectionToken()) });
    await expect(queue.waitFor(id, { timeout: 5000 })).resolves.toBe('sent to ada@example.com');

    const ready = await http.get('/health').expect(200);
    expect(ready.body).toMatchObject({ ok: true, connections: { default: { ok: true, latencyMs: expect.any(Number) } } });

    await redis.kill();
    const down = await http.get('/health').expect(503);
    expect(down.body).toMatchObject({ ok: false, connections: { default: { ok: false, error: expect.stringContaining('unreachable') } } });
    // add() while Redis is down: 503 with Retry-After, through the filter.
    const refused = await http.post('/signup').send({ to: 'bob@example.com' }).expect(503);
    expect(refused.headers['retry-after']).toBe('5');
    await redis.restart();
  }, 30_000);

  it('the filter as an APP_FILTER provider maps the same errors', async () => {
    @Module({
      imports: [QueueModule.forRoot({ connection: { url: redis.url, prefix: uniquePrefix('filter') } }), QueueModule.registerQueue({ name: 'emails', limits: { maxWaiting: 1 } })],
      controllers: [SignupController],
      providers: [{ provide: APP_FILTER, useClass: SpoolExceptionFilter }],
    })
    class FilteredModule {}
    const app = await NestFactory.create(FilteredModule, { logger: false, abortOnError: false });
    await app.init();
    apps.push(app);
    const http = request(app.getHttpServer());
    await http.post('/signup').send({ to: 'ada@example.com' }).expect(201);
    const res = await http.post('/signup').send({ to: 'bob@example.com' }).expect(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toMatchObject({ statusCode: 503, queue: 'emails', limit: 1 });
  });
});
