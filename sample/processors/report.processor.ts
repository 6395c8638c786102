import { OnJob, Processor, type ActiveJob } from '../../lib/index.js';

/**
 * The tenant-grouped 'reports' queue: jobs carry group { id: tenant }; the
 * queue's groupConcurrency (registered in AppModule) lets each tenant run two
 * at a time, served round-robin, so one busy tenant cannot starve the others.
 */
@Processor('reports', { concurrency: 6 })
export class ReportProcessor {
  @OnJob('render')
  async render(job: ActiveJob<{ tenant: string; title: string }>): Promise<string> {
    await new Promise((r) => setTimeout(r, 20));
    return `rendered "${job.data.title}" for ${job.data.tenant}`;
  }
}
