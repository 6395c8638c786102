import { Controller, Get, Header } from '@nestjs/common';
import { SpoolPrometheus } from '../lib/observability/prometheus.js';

/** Prometheus scrapes the queues here: depth, age, lag, counters and handler durations (spool/prometheus). */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly prometheus: SpoolPrometheus) {}

  @Get()
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  metrics(): Promise<string> {
    return this.prometheus.registry.metrics();
  }
}
