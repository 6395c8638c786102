import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { SpoolHealth, type SpoolHealthReport } from '../lib/index.js';

/** Readiness: 200 while every Redis connection answers a PING, 503 otherwise (point a Kubernetes readinessProbe here). */
@Controller('health')
export class HealthController {
  constructor(private readonly health: SpoolHealth) {}

  @Get()
  async ready(): Promise<SpoolHealthReport> {
    const report = await this.health.check();
    if (!report.ok) throw new ServiceUnavailableException(report);
    return report;
  }
}
