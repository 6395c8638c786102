// The docs/guide/testing.md examples, as written there, in a
// CommonJS Nest 11 app under Nest's default jest (ts-jest): QueueTesting from
// spool/testing, no Redis (the connection URL points nowhere).
import { Body, Controller, Injectable, Module, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { IsEmail, IsString } from 'class-validator';
import { getQueueToken, InjectQueue, OnJob, Processor, QueueModule, type ActiveJob, type Queue } from 'spool';
import { QueueTesting } from 'spool/testing';

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
