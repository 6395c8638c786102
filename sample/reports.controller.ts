import { Body, Controller, Get, Param, Post } from '@nestjs/common';
import { InjectQueue, type GroupState, type Queue } from '../lib/index.js';
import { ReportDto } from './dto.js';

/** Reports per tenant on a grouped queue: each tenant is a group with its own concurrency cap. */
@Controller('reports')
export class ReportsController {
  constructor(@InjectQueue('reports') private readonly reports: Queue) {}

  @Post()
  async render(@Body() report: ReportDto): Promise<{ id: string }> {
    const job = await this.reports.add('render', { tenant: report.tenant, title: report.title }, { group: { id: report.tenant } });
    return { id: job.id };
  }

  @Get('tenants/:tenant')
  tenant(@Param('tenant') tenant: string): Promise<GroupState> {
    return this.reports.getGroup(tenant);
  }
}
