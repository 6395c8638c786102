import { Body, Controller, Delete, Get, HttpCode, NotFoundException, Param, Post } from '@nestjs/common';
import { InjectQueue, type Queue } from '../lib/index.js';
import { ExportDto, ReminderDto, SendEmailDto } from './dto.js';
import { jobView, type JobView } from './job-view.js';

/** Enqueues email jobs and shows any job of any queue. */
@Controller()
export class JobsController {
  private readonly queues: ReadonlyMap<string, Queue>;

  constructor(
    @InjectQueue('emails') private readonly emails: Queue,
    @InjectQueue('orders') orders: Queue,
    @InjectQueue('warehouse') warehouse: Queue,
    @InjectQueue('reports') reports: Queue,
  ) {
    this.queues = new Map([emails, orders, warehouse, reports].map((q) => [q.name, q]));
  }

  /** The body is validated by the global ValidationPipe (400 on a bad one) and again by the queue's DTO map. */
  @Post('emails')
  async send(@Body() email: SendEmailDto): Promise<{ id: string }> {
    const job = await this.emails.add('send', { to: email.to, subject: email.subject });
    return { id: job.id };
  }

  @Post('reminders')
  async remind(@Body() reminder: ReminderDto): Promise<{ id: string }> {
    const job = await this.emails.add('reminder', { to: reminder.to }, { delay: reminder.delayMs });
    return { id: job.id };
  }

  /** A send that fails twice, then succeeds on its third attempt. */
  @Post('flaky')
  async flaky(@Body() email: SendEmailDto): Promise<{ id: string }> {
    const job = await this.emails.add('flaky', { to: email.to }, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
    return { id: job.id };
  }

  /** The caller's id becomes the job id, so the caller can cancel without keeping ours. */
  @Post('exports')
  async export(@Body() body: ExportDto): Promise<{ id: string }> {
    const job = await this.emails.add('export', { exportId: body.exportId }, { jobId: `export:${body.exportId}`, delay: body.delayMs });
    return { id: job.id };
  }

  @Delete('exports/:exportId')
  @HttpCode(200)
  async cancelExport(@Param('exportId') exportId: string): Promise<{ id: string; outcome: string }> {
    const id = `export:${exportId}`;
    const outcome = await this.emails.cancel(id);
    if (outcome === 'not-found') throw new NotFoundException(`no export ${exportId}`);
    return { id, outcome };
  }

  @Get('jobs/:queue/:id')
  async show(@Param('queue') queueName: string, @Param('id') id: string): Promise<JobView> {
    const queue = this.queues.get(queueName);
    if (!queue) throw new NotFoundException(`no queue ${queueName}; queues: ${[...this.queues.keys()].join(', ')}`);
    const job = await queue.getJob(id);
    if (!job) throw new NotFoundException(`no job ${id} in queue ${queueName}`);
    return jobView(job);
  }
}
