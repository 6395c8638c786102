import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { getConnectionToken, getFlowProducerToken, getQueueToken, OnJob, Processor, QueueModule, type ActiveJob, type FlowProducer, type Queue, type RedisStore } from '../../lib/index.js';
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
