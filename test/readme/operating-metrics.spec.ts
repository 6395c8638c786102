import 'reflect-metadata';
import { Controller, Get, Header, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { Registry, register } from 'prom-client';
import request from 'supertest';
import { trace } from '@opentelemetry/api';
import { Queue, QueueModule, RedisStore, Worker, getQueueToken } from '../../lib/index.js';
import { SpoolPrometheus, SpoolPrometheusModule } from '../../lib/observability/prometheus.js';
import { startOtel } from '../fixtures/otel-sdk.mjs';
import { parsePromText, sampleValue } from '../helpers/prom-text.js';
import { redisUrl, silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/** docs/operations/metrics.md and docs/operations/traces.md examples, as written there; the URL and prefix come from the harness. */
describe('README Operating Spool', () => {
  let store: RedisStore;
  beforeEach(async () => {
    store = new RedisStore({ url: redisUrl() }, { prefix: uniquePrefix('readme-ops'), logger: silentLogger });
    await store.connect();
  });
  afterEach(async () => {
    await store.disconnect();
  });

  it('Metrics: getMetrics() as the README reads it', async () => {
    const queue = new Queue('emails', { store });
    const worker = new Worker('emails', async () => 'sent', { store });
    await queue.add('welcome', {});
    await waitFor(async () => (await queue.getCounts()).completed === 1, { message: 'completed' });
    await worker.close();
    const logged: unknown[][] = [];
    const console = { log: (...args: unknown[]) => logged.push(args) };

    const m = await queue.getMetrics();
    m.counts; // jobs per state, as getCounts()
    m.oldestWaitingMs; // how long the longest-waiting ready job has waited
    m.delayedLagMs; // how late the earliest due delayed job is (0 when promotion keeps up)
    const now = m.minutes[m.minutes.length - 1]!; // 60 minutes, oldest first; the last one is the current minute
    console.log(now.completed, now.failed, now.deadLettered, now.retried, now.stalled, now.duration?.p99Ms);
    console.log(m.lastHour.completed, m.lastHour.duration?.p50Ms); // the 60 minutes together
    console.log(m.lastHour.byName.get('welcome')?.completed, m.lastHour.otherNames.completed); // per job name (20 names a queue at most; the rest together)

    expect(m.counts.completed).toBe(1);
    expect(m.oldestWaitingMs).toBe(0);
    expect(logged[1]![0]).toBe(1);
    expect(typeof logged[1]![1]).toBe('number');
    expect(logged[2]).toEqual([1, 0]);
  });

  it('Metrics: the Nest module and the controller serve GET /metrics', async () => {
    @Controller('metrics')
    class MetricsController {
      constructor(private readonly prometheus: SpoolPrometheus) {}

      @Get()
      @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
      metrics(): Promise<string> {
        return this.prometheus.registry.metrics(); // prom-client's global registry unless you pass { registry }
      }
    }

    @Module({
      imports: [
        QueueModule.forRoot({ connection: { url: redisUrl(), prefix: uniquePrefix('readme-prom') } }),
        QueueModule.registerQueue('emails'),
        SpoolPrometheusModule.forRoot(), // options: registry, prefix ('spool_'), connection
      ],
      controllers: [MetricsController],
    })
    class AppModule {}

    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    const app: INestApplication = moduleRef.createNestApplication({ logger: false });
    await app.init();
    try {
      await app.get<Queue>(getQueueToken('emails')).add('welcome', {});
      const res = await request(app.getHttpServer()).get('/metrics').expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
      const families = parsePromText(res.text);
      expect(sampleValue(families, 'spool_jobs', 'spool_jobs', { queue: 'emails', state: 'waiting' })).toBe(1);
      expect(register.getSingleMetric('spool_jobs')).toBeDefined();
    } finally {
      await app.close();
    }
    // Closed with the app: the global registry is left as it was.
    expect(register.getSingleMetric('spool_jobs')).toBeUndefined();
  });

  it('Metrics: without Nest', async () => {
    const emails = new Queue('emails', { store });
    const orders = new Queue('orders', { store });
    const registry = new Registry();
    new SpoolPrometheus({ queues: [emails, orders], registry });
    const families = parsePromText(await registry.metrics());
    expect(sampleValue(families, 'spool_jobs', 'spool_jobs', { queue: 'orders', state: 'waiting' })).toBe(0);
  });

  it('Traces: the handler runs in a consumer span continuing the producer span', async () => {
    const otel = startOtel();
    const queue = new Queue('emails', { store });
    const worker = new Worker('emails', async () => 'sent', { store });
    try {
      await trace.getTracer('shop').startActiveSpan('checkout', async (span) => {
        await queue.add('receipt', { order: 42 }); // span "send emails", child of "checkout"
        span.end();
      });
      await waitFor(() => otel.spans().some((s) => s.name === 'process emails'), { message: 'the consumer span' });
      const spans = otel.spans();
      const checkout = spans.find((s) => s.name === 'checkout')!;
      const send = spans.find((s) => s.name === 'send emails')!;
      const processed = spans.find((s) => s.name === 'process emails')!;
      expect(send.parentSpanId).toBe(checkout.spanId);
      expect(processed.parentSpanId).toBe(send.spanId);
      expect(processed.traceId).toBe(checkout.traceId);
    } finally {
      await worker.close();
      await otel.stop();
    }
  });
});
