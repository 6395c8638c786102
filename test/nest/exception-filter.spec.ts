import 'reflect-metadata';
import { Body, Controller, Get, Param, Post, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsEmail, IsString, MinLength } from 'class-validator';
import request from 'supertest';
import {
  CommandTimeoutError,
  FlowProducer,
  InjectFlowProducer,
  InjectQueue,
  Queue,
  QueueModule,
  RateLimitedError,
  SpoolExceptionFilter,
  spoolHttpError,
} from '../../lib/index.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { redisUrl, uniquePrefix } from '../helpers/store.js';

class SendDto {
  @IsEmail() to!: string;
  @IsString() @MinLength(3) subject!: string;
}

@Controller()
class JobsController {
  constructor(
    @InjectQueue('mail') private readonly mail: Queue,
    @InjectQueue('capped') private readonly capped: Queue,
    @InjectQueue('tenants') private readonly tenants: Queue,
    @InjectQueue('remote', 'down') private readonly remote: Queue,
    @InjectFlowProducer() private readonly flows: FlowProducer,
  ) {}

  @Post('mail')
  async send(@Body() body: unknown) {
    return { id: (await this.mail.add('send', body)).id };
  }

  @Post('capped')
  async cap() {
    return { id: (await this.capped.add('x', {})).id };
  }

  @Post('tenants/:tenant')
  async tenant(@Param('tenant') tenant: string) {
    return { id: (await this.tenants.add('x', {}, { group: { id: tenant } })).id };
  }

  @Post('remote')
  async far() {
    return { id: (await this.remote.add('x', {})).id };
  }

  @Post('flow')
  async flow() {
    return { id: (await this.flows.add({ name: 'x', queueName: 'nowhere' })).job.id };
  }

  @Get('throttled')
  throttled(): never {
    throw new RateLimitedError(2500, 'the mail provider is rate limiting us');
  }

  @Get('bug')
  bug(): never {
    throw new Error('a plain bug');
  }
}

// Spool errors over HTTP: the exported filter turns them into statuses a
// client can act on, instead of Nest's bare 500.
describe('SpoolExceptionFilter over HTTP', () => {
  let app: INestApplication;
  let down: RedisServer;
  let http: ReturnType<typeof request>;

  beforeAll(async () => {
    down = await RedisServer.start();
    const prefix = uniquePrefix('http');
    const moduleRef = await Test.createTestingModule({
      imports: [
        QueueModule.forRoot({ connection: { url: redisUrl(), prefix }, connections: { down: { url: down.url, prefix } } }),
        QueueModule.registerQueue(
          { name: 'mail', jobs: { send: SendDto } },
          { name: 'capped', limits: { maxWaiting: 1 } },
          { name: 'tenants', limits: { maxWaitingPerGroup: 1 } },
          { name: 'remote', connection: 'down' },
        ),
        QueueModule.registerFlowProducer(),
      ],
      controllers: [JobsController],
    }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new SpoolExceptionFilter(app.getHttpAdapter()));
    await app.init();
    http = request(app.getHttpServer());
  });

  afterAll(async () => {
    await app?.close();
    await down?.dispose();
  });

  it('validation: 400 with every constraint', async () => {
    const res = await http.post('/mail').send({ to: 'nope', subject: 'x' }).expect(400);
    expect(res.body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      queue: 'mail',
      jobName: 'send',
      message: expect.arrayContaining([expect.stringMatching(/^to: .*email/), expect.stringMatching(/^subject: .*3/)]),
    });
    expect(res.body.message).toHaveLength(2);
    await http.post('/mail').send({ to: 'ada@example.com', subject: 'hello' }).expect(201);
  });

  it('a full queue: 503 with Retry-After; a full group: 429 with Retry-After', async () => {
    await http.post('/capped').expect(201);
    const full = await http.post('/capped').expect(503);
    expect(full.headers['retry-after']).toBe('5');
    expect(full.body).toMatchObject({ statusCode: 503, queue: 'capped', limit: 1, message: expect.stringContaining('is full') });

    await http.post('/tenants/acme').expect(201);
    const tenant = await http.post('/tenants/acme').expect(429);
    expect(tenant.headers['retry-after']).toBe('5');
    expect(tenant.body).toMatchObject({ statusCode: 429, group: 'acme', queue: 'tenants' });
    await http.post('/tenants/globex').expect(201);
  });

  it('RateLimitedError: 429 with Retry-After in whole seconds', async () => {
    const res = await http.get('/throttled').expect(429);
    expect(res.headers['retry-after']).toBe('3');
    expect(res.body).toEqual({ statusCode: 429, error: 'Too Many Requests', message: 'the mail provider is rate limiting us' });
  });

  it('UnknownQueueError: 500 with the message', async () => {
    const res = await http.post('/flow').expect(500);
    expect(res.body.message).toMatch(/nowhere/);
  });

  it('Redis unreachable: 503 with Retry-After', async () => {
    await http.post('/remote').expect(201);
    await down.kill();
    const res = await http.post('/remote').expect(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toEqual({ statusCode: 503, error: 'Service Unavailable', message: 'the job store is unavailable; retry later' });
  });

  it('a Redis that stopped answering (CommandTimeoutError, a RedisUnavailableError): 503 with Retry-After too', () => {
    expect(spoolHttpError(new CommandTimeoutError('script add', 5000))).toEqual({
      status: 503,
      body: { statusCode: 503, error: 'Service Unavailable', message: 'the job store is unavailable; retry later' },
      retryAfter: 5,
    });
  });

  it('leaves other errors to Nest (a generic 500 that leaks nothing)', async () => {
    const res = await http.get('/bug').expect(500);
    expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error' });
  });
});
