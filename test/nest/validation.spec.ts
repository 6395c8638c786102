import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { Type } from 'class-transformer';
import { IsEmail, IsInt, IsString, Min, MinLength, ValidateNested } from 'class-validator';
import {
  OnJob,
  Processor,
  Queue,
  QueueModule,
  QueueValidationError,
  getConnectionToken,
  getQueueToken,
  type ActiveJob,
  type RedisStore,
} from '../../lib/index.js';
import { nestHarness, rootOptions } from './nest-harness.js';

class SendEmailDto {
  @IsEmail()
  to!: string;

  @IsString()
  @MinLength(3)
  subject!: string;
}

class Line {
  @IsString()
  sku!: string;

  @IsInt()
  @Min(1)
  qty!: number;
}

class InvoiceDto {
  @IsInt()
  @Min(1)
  orderId!: number;

  @ValidateNested()
  @Type(() => Line)
  line!: Line;
}

@Injectable()
class Seen {
  readonly payloads: unknown[] = [];
}

@Processor('mail')
class MailProcessor {
  constructor(private readonly seen: Seen) {}

  @OnJob('send', { dto: SendEmailDto })
  send(_job: ActiveJob, email: SendEmailDto): string {
    this.seen.payloads.push(email);
    return `sent to ${email.to}`;
  }
}

@Processor('billing')
class BillingProcessor {
  constructor(private readonly seen: Seen) {}

  /** The DTO comes from registerQueue({ jobs }); the handler gets the transformed instance. */
  @OnJob('invoice')
  invoice(_job: ActiveJob, invoice: InvoiceDto): number {
    this.seen.payloads.push(invoice);
    return invoice.line.qty;
  }
}

describe('DTO validation', () => {
  const nest = nestHarness();

  async function app() {
    return nest.app({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('mail', { name: 'billing', jobs: { invoice: InvoiceDto } })],
      providers: [Seen, MailProcessor, BillingProcessor],
    });
  }

  it('refuses an invalid payload at add() with every constraint, writing nothing', async () => {
    const nestApp = await app();
    const mail = nestApp.get<Queue>(getQueueToken('mail'));
    const billing = nestApp.get<Queue>(getQueueToken('billing'));
    nest.verifyAfter(mail, billing);

    const refused = await mail.add('send', { to: 'not-an-email', subject: 'hi' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(QueueValidationError);
    const error = refused as QueueValidationError;
    expect(error.queue).toBe('mail');
    expect(error.jobName).toBe('send');
    expect(error.constraints).toEqual(['to: to must be an email', 'subject: subject must be longer than or equal to 3 characters']);

    const nested = await billing.add('invoice', { orderId: 0, line: { sku: 'A', qty: 0 } }).catch((e: unknown) => e);
    expect((nested as QueueValidationError).constraints).toEqual(['orderId: orderId must not be less than 1', 'line.qty: qty must not be less than 1']);
    await expect(mail.addBulk([{ name: 'send', data: { to: 'a@example.com', subject: 'fine' } }, { name: 'send', data: {} }])).rejects.toBeInstanceOf(QueueValidationError);

    const counts = [await mail.getCounts(), await billing.getCounts()];
    for (const c of counts) expect(c.waiting + c.delayed + c.active + c.completed + c.failed).toBe(0);
  });

  it('runs valid payloads as DTO instances', async () => {
    const nestApp = await app();
    const mail = nestApp.get<Queue>(getQueueToken('mail'));
    const billing = nestApp.get<Queue>(getQueueToken('billing'));
    nest.verifyAfter(mail, billing);
    const sent = await mail.add('send', { to: 'ada@example.com', subject: 'welcome' });
    const invoiced = await billing.add('invoice', { orderId: 7, line: { sku: 'A', qty: 3 } });
    await expect(mail.waitFor(sent.id, { timeout: 5000 })).resolves.toBe('sent to ada@example.com');
    await expect(billing.waitFor(invoiced.id, { timeout: 5000 })).resolves.toBe(3);
    const [email, invoice] = nestApp.get(Seen).payloads.sort((a) => (a instanceof SendEmailDto ? -1 : 1));
    expect(email).toBeInstanceOf(SendEmailDto);
    expect(invoice).toBeInstanceOf(InvoiceDto);
    expect((invoice as InvoiceDto).line).toBeInstanceOf(Line);
  });

  it('dead-letters an invalid stored payload before the handler, at once', async () => {
    const nestApp = await app();
    const mail = nestApp.get<Queue>(getQueueToken('mail'));
    nest.verifyAfter(mail);
    // A producer without the DTO map (another service, an older release) wrote a bad payload.
    const raw = new Queue('mail', { store: nestApp.get<RedisStore>(getConnectionToken()) });
    const job = await raw.add('send', { to: 'nobody', subject: 'x' }, { attempts: 5 });
    await expect(mail.waitFor(job.id, { timeout: 5000 })).rejects.toThrow(/to: to must be an email; subject: subject must be longer/);
    const dead = await mail.getJob(job.id);
    expect(dead?.state).toBe('failed');
    expect(dead?.error?.reason).toBe('validation');
    expect(dead?.attempt).toBe(1);
    expect(nestApp.get(Seen).payloads).toEqual([]);
  });
});
