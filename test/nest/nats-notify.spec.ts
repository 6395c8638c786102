import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { NatsNotify, NatsUnavailableError, OnJob, Processor, QueueModule, SpoolBootstrapError, getConnectionToken, getQueueToken, type ActiveJob, type Queue, type RedisStore } from '../../lib/index.js';
import { NatsServer } from '../helpers/nats-server.js';
import { freePort } from '../helpers/redis-server.mjs';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

@Injectable()
class Seen {
  readonly ids: string[] = [];
}

@Processor('nats-mail')
class MailProcessor {
  constructor(private readonly seen: Seen) {}

  @OnJob('send')
  async send(job: ActiveJob): Promise<void> {
    this.seen.ids.push(job.id);
  }
}

describe('QueueModule.forRoot({ notify: { nats } })', () => {
  const nest = nestHarness();
  let nats: NatsServer;
  beforeAll(async () => {
    nats = await NatsServer.start();
  });
  afterAll(async () => {
    await nats?.dispose();
  });

  it('runs processors with wake-ups over NATS (KV hints), the store using a NatsNotify', async () => {
    const options = { ...rootOptions(), notify: { nats: { servers: nats.url, kvBucket: 'nest_hints', subjectPrefix: 'nest' } } };
    const app = await nest.app({ imports: [QueueModule.forRoot(options), QueueModule.registerQueue('nats-mail')], providers: [Seen, MailProcessor] });
    const store = app.get<RedisStore>(getConnectionToken());
    expect(store.notify).toBeInstanceOf(NatsNotify);
    const queue = app.get<Queue>(getQueueToken('nats-mail'));
    nest.verifyAfter(queue);
    const job = await queue.add('send', {});
    await waitFor(() => app.get(Seen).ids.includes(job.id), { message: 'the processor to run the job' });
  });

  it('refuses a misspelt NATS option and an unreachable NATS at bootstrap', async () => {
    const typo = { ...rootOptions(), notify: { nats: { servers: nats.url, kvBuckt: 'x' } } };
    const bad = await Test.createTestingModule({ imports: [QueueModule.forRoot(typo)] }).compile().catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(SpoolBootstrapError);
    expect((bad as Error).message).toMatch(/notify\.nats\.kvBuckt.*did you mean "kvBucket"/);
    const down = { ...rootOptions(), notify: { nats: { servers: `nats://127.0.0.1:${await freePort()}`, connectTimeout: 1000 } } };
    // Connections (and NATS) open at module init: compile() succeeds, init() refuses.
    const app = await Test.createTestingModule({ imports: [QueueModule.forRoot(down)] }).compile();
    await expect(app.init()).rejects.toBeInstanceOf(NatsUnavailableError);
    await app.close();
  });
});
