import 'reflect-metadata';
import net from 'node:net';
import { Injectable, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { IsEmail } from 'class-validator';
import { getQueueToken, InjectQueue, OnJob, OnQueueEvent, Processor, Queue, QueueModule, QueueValidationError, UnrecoverableError, type ActiveJob, type QueueEvent } from '../../lib/index.js';
import { QueueTesting } from '../../lib/testing/index.js';
import { waitFor } from '../helpers/wait-for.js';

// This file must pass with no Redis anywhere: it never reads the harness's URL, and fails on any connection attempt.
delete process.env.SPOOL_TEST_REDIS_URL;
const connects: unknown[] = [];
const realConnect = net.Socket.prototype.connect;

class WelcomeDto {
  @IsEmail() to!: string;
}

@Processor('emails')
class EmailProcessor {
  readonly sent: string[] = [];
  @OnJob('welcome', { dto: WelcomeDto })
  welcome(job: ActiveJob, dto: WelcomeDto) {
    if (dto.to.startsWith('bounce')) throw new UnrecoverableError('mailbox gone');
    if (dto.to.startsWith('flaky') && job.attempt === 1) throw new Error('smtp timeout');
    this.sent.push(dto.to);
    return `sent to ${dto.to}`;
  }
}

@Injectable()
class Signup {
  constructor(@InjectQueue('emails') private readonly emails: Queue) {}
  register(to: string) {
    return this.emails.add('welcome', { to }, { attempts: 2, backoff: 60_000 });
  }
}

@Injectable()
class DeadLetterAlerts {
  readonly dead: string[] = [];
  @OnQueueEvent('emails', 'failed')
  onFailed(e: QueueEvent<'failed'>) {
    if (e.next === 'dead') this.dead.push(`${e.jobId} ${e.reason}`);
  }
}

@Module({
  imports: [QueueModule.forRoot({ connection: { url: 'redis://127.0.0.1:1' } }), QueueModule.registerQueue('emails')],
  providers: [EmailProcessor, Signup, DeadLetterAlerts],
})
class AppModule {}

describe('QueueTesting: the Nest app on MemoryStore, no Redis', () => {
  let moduleRef: TestingModule | undefined;
  beforeAll(() => {
    net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
      connects.push(args[0]);
      return (realConnect as (...a: unknown[]) => net.Socket).apply(this, args);
    } as typeof net.Socket.prototype.connect;
  });
  afterAll(() => {
    net.Socket.prototype.connect = realConnect;
  });
  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
    expect(connects).toEqual([]);
  });

  async function boot(testing: QueueTesting) {
    moduleRef = await testing.apply(Test.createTestingModule({ imports: [AppModule] })).compile();
    await moduleRef.init();
    return { signup: moduleRef.get(Signup), processor: moduleRef.get(EmailProcessor) };
  }

  it('manual: jobs are recorded; runNext runs one attempt and shows result and failure', async () => {
    const testing = new QueueTesting({ mode: 'manual', clock: 'manual' });
    const { signup, processor } = await boot(testing);
    await signup.register('ada@example.com');
    await signup.register('bounce@example.com');
    expect(testing.jobs('emails').map((j) => [j.name, j.data, j.state])).toEqual([
      ['welcome', { to: 'ada@example.com' }, 'waiting'],
      ['welcome', { to: 'bounce@example.com' }, 'waiting'],
    ]);
    expect(processor.sent).toEqual([]);
    const first = await testing.runNext('emails');
    expect(first).toMatchObject({ state: 'completed', result: 'sent to ada@example.com' });
    const second = await testing.runNext('emails');
    expect(second).toMatchObject({ state: 'failed', error: { message: 'mailbox gone', reason: 'unrecoverable' } });
    expect(await testing.runNext('emails')).toBeNull();
    expect(processor.sent).toEqual(['ada@example.com']);
  });

  it('manual: a retry waits for its backoff on the test clock; drain runs what is due', async () => {
    const testing = new QueueTesting({ mode: 'manual', clock: 'manual' });
    const { signup } = await boot(testing);
    await signup.register('flaky@example.com');
    const retry = await testing.runNext('emails');
    expect(retry).toMatchObject({ state: 'delayed', attempt: 1, error: { message: 'smtp timeout' } });
    expect(retry!.runAt! - testing.clock.now()).toBe(60_000);
    expect(await testing.runNext('emails')).toBeNull();
    await testing.clock.advance(60_000);
    const runs = await testing.drain('emails');
    expect(runs.map((j) => [j.state, j.attempt, j.result])).toEqual([['completed', 2, 'sent to flaky@example.com']]);
  });

  it('DTO validation refuses a bad payload at add() in both modes', async () => {
    for (const mode of ['manual', 'auto'] as const) {
      const testing = new QueueTesting({ mode });
      const { signup } = await boot(testing);
      await expect(signup.register('not-an-email')).rejects.toBeInstanceOf(QueueValidationError);
      expect(testing.jobs('emails')).toEqual([]);
      await moduleRef!.close();
      moduleRef = undefined;
    }
  });

  it('auto: workers run jobs in the process as in production; drain waits for them', async () => {
    const testing = new QueueTesting();
    const { signup, processor } = await boot(testing);
    await signup.register('ada@example.com');
    await signup.register('grace@example.com');
    const done = await testing.drain('emails');
    expect(done.map((j) => j.state)).toEqual(['completed', 'completed']);
    expect(processor.sent.sort()).toEqual(['ada@example.com', 'grace@example.com']);
    await expect(testing.runNext('emails')).rejects.toThrow(/manual/);
  });

  it('auto: @OnQueueEvent listeners hear the queue events, and the operations API answers', async () => {
    const testing = new QueueTesting();
    const { signup } = await boot(testing);
    const bounced = await signup.register('bounce@example.com');
    await testing.drain('emails');
    const alerts = moduleRef!.get(DeadLetterAlerts);
    await waitFor(() => alerts.dead.length === 1, { message: 'the dead-letter event' });
    expect(alerts.dead).toEqual([`${bounced.id} unrecoverable`]);
    const emails = moduleRef!.get<Queue>(getQueueToken('emails'));
    expect((await emails.getFailed({ reason: 'unrecoverable' })).jobs.map((j) => j.id)).toEqual([bounced.id]);
    expect(await emails.redrive({ filter: { name: 'welcome' } })).toBe(1);
  });

  it('the worker checks a stored payload against the DTO too', async () => {
    const testing = new QueueTesting({ mode: 'manual' });
    await boot(testing);
    const raw = { id: 'raw', name: 'welcome', data: JSON.stringify({ to: 'nope' }), opts: '{}', delay: 0, priority: 0, lifo: false, maxAttempts: 3, deadline: 0, removeOnComplete: '-1,-1', removeOnFail: '-1,-1' };
    await testing.store().add('emails', [raw]);
    const run = await testing.runNext('emails');
    expect(run).toMatchObject({ state: 'failed', attempt: 1, error: { code: 'JobValidationError' } });
    expect(run!.error!.message).toMatch(/payload of job raw \("welcome"\) is invalid/);
  });

  it('one QueueTesting serves app after app, each starting empty', async () => {
    const testing = new QueueTesting({ mode: 'manual' });
    await (await boot(testing)).signup.register('ada@example.com');
    expect(testing.jobs('emails')).toHaveLength(1);
    await moduleRef!.close();
    await boot(testing);
    expect(testing.jobs('emails')).toEqual([]);
  });

  it('bad options name the field', () => {
    expect(() => new QueueTesting({ mode: 'later' as 'auto' })).toThrow(/QueueTesting options.mode/);
    expect(() => new QueueTesting({ speed: 2 } as never)).toThrow(/speed/);
  });
});
