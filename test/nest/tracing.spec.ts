import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { getConnectionToken, getFlowProducerToken, getQueueToken, OnJob, Processor, QueueModule, type ActiveJob, type FlowProducer, type Queue, type RedisStore } from '../../lib/index.js';
import { SpoolConnections } from '../../lib/nest/connections.js';
import { QueueRegistry } from '../../lib/nest/queue-registry.js';
import { MemoryStore } from '../../lib/testing/index.js';
import { startOtel } from '../fixtures/otel-sdk.mjs';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

const ran: string[] = [];

@Processor('quiet-nest')
@Injectable()
class QuietProcessor {
  @OnJob()
  handle(job: ActiveJob): void {
    ran.push(job.name);
  }
}

/** forRoot({ tracing: false }): the module's queues, flow producer and workers make no span and store no context. */
describe('QueueModule.forRoot({ tracing: false })', () => {
  const h = nestHarness();
  let otel: ReturnType<typeof startOtel>;

  beforeEach(() => {
    otel = startOtel();
  });
  afterEach(async () => {
    await otel.stop();
  });

  it('adds, flows and handlers run without spans, even inside an active span with the SDK on', async () => {
    const app = await h.app({
      imports: [QueueModule.forRoot({ ...rootOptions(), tracing: false }), QueueModule.registerQueue({ name: 'quiet-nest' }), QueueModule.registerFlowProducer()],
      providers: [QuietProcessor],
    });
    const queue = app.get<Queue>(getQueueToken('quiet-nest'));
    const flows = app.get<FlowProducer>(getFlowProducerToken());
    h.verifyAfter(queue);
    const [job, tree] = await otel.tracer.startActiveSpan('request', async (span) => {
      const added = await Promise.all([queue.add('plain', {}), flows.add({ name: 'parent', queueName: 'quiet-nest', children: [{ name: 'child', queueName: 'quiet-nest' }] })]);
      span.end();
      return added;
    });
    const store = app.get<RedisStore>(getConnectionToken());
    for (const id of [job.id, tree.job.id, tree.children[0]!.job.id]) {
      expect(await commandOf(store, 'test').sendCommand(['HGET', keysOf(store, 'quiet-nest').job(id), 'tc'])).toBeNull();
    }
    await waitFor(async () => (await queue.getCounts()).completed === 3, { message: 'the three jobs to complete' });
    expect(ran.sort()).toEqual(['child', 'parent', 'plain']);
    expect((otel.spans() as { name: string }[]).map((s) => s.name)).toEqual(['request']);
  });
});

/** Per registration: registerQueue({ tracing }) and registerFlowProducer({ tracing }) over the module's setting. */
describe('registerQueue({ tracing: false }) and registerFlowProducer({ tracing: false })', () => {
  const h = nestHarness();
  let otel: ReturnType<typeof startOtel>;

  beforeEach(() => {
    otel = startOtel();
  });
  afterEach(async () => {
    await otel.stop();
  });

  it('turn spans and stored context off for that queue or flow producer only; the module traces the rest', async () => {
    const app = await h.app({
      imports: [
        QueueModule.forRoot(rootOptions()),
        QueueModule.registerQueue({ name: 'traced-nest' }, { name: 'untraced-nest', tracing: false }),
        QueueModule.registerFlowProducer({ tracing: false }),
      ],
    });
    const traced = app.get<Queue>(getQueueToken('traced-nest'));
    const untraced = app.get<Queue>(getQueueToken('untraced-nest'));
    const flows = app.get<FlowProducer>(getFlowProducerToken());
    h.verifyAfter(traced, untraced);
    const [on, off, tree] = await otel.tracer.startActiveSpan('request', async (span) => {
      const added = await Promise.all([
        traced.add('on', {}),
        untraced.add('off', {}),
        flows.add({ name: 'parent', queueName: 'traced-nest', children: [{ name: 'child', queueName: 'untraced-nest' }] }),
      ] as const);
      span.end();
      return added;
    });
    const store = app.get<RedisStore>(getConnectionToken());
    const tc = (queue: string, id: string) => commandOf(store, 'test').sendCommand(['HGET', keysOf(store, queue).job(id), 'tc']);
    // The control: the module traces, so the queue registered without an opinion stores the context.
    expect(await tc('traced-nest', on.id)).toEqual(expect.stringContaining('traceparent'));
    expect(await tc('untraced-nest', off.id)).toBeNull();
    expect(await tc('traced-nest', tree.job.id)).toBeNull();
    expect(await tc('untraced-nest', tree.children[0]!.job.id)).toBeNull();
    expect((otel.spans() as { name: string }[]).map((s) => s.name).sort()).toEqual(['request', 'send traced-nest']);
  });

  it('refuse a second registration of a queue with another tracing', async () => {
    const registry = new QueueRegistry(SpoolConnections.inProcess({}, () => new MemoryStore()));
    await registry.register({ name: 'twice', tracing: false }, { name: 'default' }, 'first');
    await registry.register({ name: 'twice' }, { name: 'default' }, 'plain');
    await expect(registry.register({ name: 'twice', tracing: true }, { name: 'default' }, 'second')).rejects.toThrow('second.tracing is true, but queue "twice" is registered elsewhere with tracing: false');
  });

  it('refuse a tracing that is not a boolean', () => {
    expect(() => QueueModule.registerQueue({ name: 'q', tracing: 'off' as unknown as boolean })).toThrow('QueueModule.registerQueue() argument 1.tracing must be true or false');
    expect(() => QueueModule.registerFlowProducer({ tracing: 0 as unknown as boolean })).toThrow('QueueModule.registerFlowProducer() options.tracing must be true or false');
  });
});
