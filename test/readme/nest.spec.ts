import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { IsEmail, IsString } from 'class-validator';
import { InjectQueue, OnJob, OnWorkerEvent, Processor, Queue, QueueModule, QueueValidationError, getQueueToken, type ActiveJob } from '../../lib/index.js';
import { nestHarness } from '../nest/nest-harness.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * docs/guide/processors.md "The Nest module" example, as written there: the connection
 * comes from the harness, the `/* ... *\/` bodies record their calls, and
 * Mailer (the app's own service on that page) is a recorder that refuses
 * one address.
 */
const calls: { resized: string[]; other: string[]; failed: [string, string, string][] } = { resized: [], other: [], failed: [] };

@Injectable()
class Mailer {
  readonly sent: SendEmailDto[] = [];
  async send(email: SendEmailDto, { signal }: { signal: AbortSignal }): Promise<string> {
    signal.throwIfAborted();
    if (email.to === 'bounce@example.com') throw new Error('mailbox full');
    this.sent.push(email);
    return `message-${this.sent.length}`;
  }
}

class SendEmailDto {
  @IsEmail() to!: string;
  @IsString() subject!: string;
}

@Processor('emails', { concurrency: 10, shutdownTimeout: 10_000 })
export class EmailProcessor {
  constructor(private readonly mailer: Mailer) {}            // your own @Injectable() service, injected as usual

  @OnJob('send', { dto: SendEmailDto })                       // payload turned into the DTO and validated first
  send(job: ActiveJob, email: SendEmailDto) {
    return this.mailer.send(email, { signal: job.signal });   // the return value is the job's result
  }

  @OnJob('resize-avatar', { concurrency: 2 })                 // at most 2 of this name at once in this pool
  resize(job: ActiveJob<{ userId: string }>) { calls.resized.push(job.data.userId); }

  @OnJob()                                                    // every name without its own handler
  other(job: ActiveJob) { calls.other.push(job.name); }

  @OnWorkerEvent('failed')
  failed(job: ActiveJob, error: Error, next: 'retry' | 'dead') { calls.failed.push([job.name, error.message, next]); }
}

@Injectable()
export class SignupService {
  constructor(@InjectQueue('emails') private readonly emails: Queue) {}
  welcome(to: string) {
    return this.emails.add('send', { to, subject: 'Welcome' }, { attempts: 5, backoff: { type: 'exponential', delay: 1000 } });
  }
}

function appModule(prefix: string) {
  @Module({
    imports: [
      QueueModule.forRoot({ connection: { url: redisUrl(), prefix } }),
      QueueModule.registerQueue('emails'),                       // in any feature module, like forFeature
    ],
    providers: [Mailer, EmailProcessor, SignupService],
  })
  class AppModule {}
  return AppModule;
}

describe('README Nest module example', () => {
  const nest = nestHarness();

  it('sends through the processor, validates the DTO, routes by name and reports failures', async () => {
    const app = await nest.app({ imports: [appModule(uniquePrefix('readme-nest'))] });
    const emails = app.get<Queue>(getQueueToken('emails'));
    nest.verifyAfter(emails);
    const signup = app.get(SignupService);
    const mailer = app.get(Mailer);

    const job = await signup.welcome('ada@example.com');
    expect(job.opts.attempts).toBe(5);
    expect(await job.waitUntilFinished({ timeout: 10_000 })).toBe('message-1');
    expect(mailer.sent).toHaveLength(1);
    expect(mailer.sent[0]).toBeInstanceOf(SendEmailDto);
    expect({ ...mailer.sent[0] }).toEqual({ to: 'ada@example.com', subject: 'Welcome' });

    // Validated before anything reaches Redis.
    const invalid = signup.welcome('not-an-email');
    await expect(invalid).rejects.toBeInstanceOf(QueueValidationError);
    await expect(invalid).rejects.toThrow(/to: /);
    expect((await emails.getCounts()).waiting).toBe(0);

    const resize = await emails.add('resize-avatar', { userId: 'u1' });
    const digest = await emails.add('digest', {});
    await Promise.all([resize.waitUntilFinished({ timeout: 10_000 }), digest.waitUntilFinished({ timeout: 10_000 })]);
    expect(calls.resized).toEqual(['u1']);
    expect(calls.other).toEqual(['digest']);

    await signup.welcome('bounce@example.com');
    await waitFor(() => calls.failed.length > 0, { timeout: 10_000, message: 'the failed event' });
    expect(calls.failed[0]).toEqual(['send', 'mailbox full', 'retry']);
  });
});
