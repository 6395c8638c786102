import { OnJob, OnWorkerEvent, Processor, UnrecoverableError, type ActiveJob } from '../../lib/index.js';
import { Logger } from '@nestjs/common';
import { SendEmailDto } from '../dto.js';

/** The 'emails' queue: sends, delayed reminders, a flaky send, and a long cancellable export. */
@Processor('emails', { concurrency: 4 })
export class EmailProcessor {
  private readonly logger = new Logger('EmailProcessor');

  @OnJob('send', { dto: SendEmailDto })
  send(_job: ActiveJob, email: SendEmailDto): string {
    return `sent "${email.subject}" to ${email.to}`;
  }

  @OnJob('reminder')
  reminder(job: ActiveJob<{ to: string }>): string {
    return `reminded ${job.data.to}`;
  }

  /** Fails its first two attempts (an SMTP server having a bad minute), then succeeds. */
  @OnJob('flaky')
  flaky(job: ActiveJob<{ to: string }>): string {
    if (job.attempt < 3) throw new Error(`smtp timeout on attempt ${job.attempt}`);
    return `sent to ${job.data.to} on attempt ${job.attempt}`;
  }

  /** Fails (for good) the first time this process sees the job: redriving it from the dashboard then completes it. */
  @OnJob('fragile')
  fragile(job: ActiveJob<{ to: string }>): string {
    if (!this.seen.has(job.id)) {
      this.seen.add(job.id);
      throw new UnrecoverableError(`mailbox of ${job.data.to} is full`);
    }
    return `sent to ${job.data.to} after a redrive`;
  }

  private readonly seen = new Set<string>();

  /** A long export that stops as soon as it is cancelled (job.signal aborts). */
  @OnJob('export', { concurrency: 1 })
  async export(job: ActiveJob<{ exportId: string }>): Promise<string> {
    for (let step = 1; step <= 100; step++) {
      job.signal.throwIfAborted();
      await new Promise((r) => setTimeout(r, 50));
      await job.updateProgress(step);
    }
    return `export ${job.data.exportId} ready`;
  }

  @OnWorkerEvent('failed')
  onFailed(job: ActiveJob, error: Error, next: 'retry' | 'dead'): void {
    this.logger.warn(`${job.name} ${job.id} failed (${next}): ${error.message}`);
  }
}
