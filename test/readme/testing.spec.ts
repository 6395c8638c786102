import 'reflect-metadata';
import { Body, Controller, Injectable, Module, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsEmail, IsString } from 'class-validator';
import { getQueueToken, InjectQueue, OnJob, Processor, Queue, QueueModule, Worker, type ActiveJob } from '../../lib/index.js';
import { MemoryStore, QueueTesting } from '../../lib/testing/index.js';

/**
 * docs/guide/testing.md "Testing your processors" examples, as written there, over a
 * small AppModule like the page's (its Mailer times out once). The
 * connection URL points nowhere: nothing may reach for Redis.
 */
delete process.env.SPOOL_TEST_REDIS_URL;

class SendEmailDto {
  @IsEmail() to!: string;
  @IsString() subject!: string;
}

@Injectable()
class Mailer {
  private calls = 0;
  send(): string {
    this.calls += 1;
    if (this.calls === 1) throw new Error('smtp timeout');
    return `message-${this.calls - 1}`;
  }
}

@Processor('emails')
class EmailProcessor {
  constructor(private readonly mailer: Mailer) {}
  @OnJob('send', { dto: SendEmailDto })
  send(_job: ActiveJob, _email: SendEmailDto) {
    return this.mailer.send();
  }
}

@Controller()
class SignupController {
  constructor(@InjectQueue('emails') private readonly emails: Queue) {}
  @Post('signup')
  async signup(@Body() body: { email: string }) {
    await this.emails.add('send', { to: body.email, subject: 'Welcome' });
    return { ok: true };
  }
}

@Module({
  imports: [QueueModule.forRoot({ connection: { url: 'redis://127.0.0.1:1' } }), QueueModule.registerQueue('emails')],
  controllers: [SignupController],
  providers: [Mailer, EmailProcessor],
})
class AppModule {}

describe('README: Testing your processors', () => {
  it('sends the welcome email, and retries a timeout a minute later', async () => {
    const testing = new QueueTesting({ mode: 'manual', clock: 'manual' });
    const app = await testing.apply(Test.createTestingModule({ imports: [AppModule] })).compile();
    await app.init();
    const emails = app.get<Queue>(getQueueToken('emails'));

    await emails.add('send', { to: 'ada@example.com', subject: 'Welcome' }, { attempts: 2, backoff: 60_000 });
    const first = await testing.runNext('emails');
    expect(first).toMatchObject({ state: 'delayed', error: { message: 'smtp timeout' } });

    await testing.clock.advance(60_000);
    const [second] = await testing.drain('emails');
    expect(second).toMatchObject({ state: 'completed', attempt: 2, result: 'message-1' });
    await app.close();
  });

  it('POST /signup enqueues the welcome email', async () => {
    const testing = new QueueTesting({ mode: 'manual' });
    const app = await testing.apply(Test.createTestingModule({ imports: [AppModule] })).compile();
    await app.init();

    await app.get(SignupController).signup({ email: 'ada@example.com' });

    expect(testing.jobs('emails').map((job) => [job.name, job.data])).toEqual([
      ['send', { to: 'ada@example.com', subject: 'Welcome' }],
    ]);
    await app.close();
  });

  it('without Nest: a day-long delay on the manual clock', async () => {
    const log: unknown[] = [];
    const console = { log: (value: unknown) => log.push(value) };

    const store = new MemoryStore({ clock: 'manual' });
    const reminders = new Queue<{ to: string }>('reminders', { store });
    const worker = new Worker<{ to: string }>('reminders', async (job) => `reminded ${job.data.to}`, { store });

    const job = await reminders.add('remind', { to: 'ada' }, { delay: 86_400_000 });
    await store.clock.advance(86_400_000);                           // a day, in milliseconds
    console.log(await reminders.waitFor(job.id));                   // 'reminded ada'
    await worker.close();

    expect(log).toEqual(['reminded ada']);
  });
  it('without Nest: a daily schedule fires three times when the clock advances three days', async () => {
    const log: unknown[][] = [];
    const console = { log: (...values: unknown[]) => log.push(values) };

    const store = new MemoryStore({ clock: 'manual' });
    const digests = new Queue('digests', { store });
    const sentAt: number[] = [];
    const worker = new Worker('digests', async () => void sentAt.push(store.clock.now()), { store });

    await digests.upsertScheduler('daily', { cron: '0 8 * * *' }, { name: 'digest' });
    await store.clock.advance(3 * 86_400_000);                      // three days
    const { count, lastJobId } = (await digests.getScheduler('daily'))!;
    await digests.waitFor(lastJobId!);
    console.log(count, sentAt.map((t) => new Date(t).toISOString().slice(11, 16))); // 3 [ '08:00', '08:00', '08:00' ]
    await worker.close();

    expect(log).toEqual([[3, ['08:00', '08:00', '08:00']]]);
  });
});
