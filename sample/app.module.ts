import { Module, type DynamicModule } from '@nestjs/common';
import { Registry } from 'prom-client';
import { QueueDashboardModule, QueueModule } from '../lib/index.js';
import { DashboardGuard } from './dashboard-guard.js';
import { SpoolPrometheusModule } from '../lib/observability/prometheus.js';
import { PickDto, SendEmailDto } from './dto.js';
import { HealthController } from './health.controller.js';
import { JobsController } from './jobs.controller.js';
import { MetricsController } from './metrics.controller.js';
import { OrdersController } from './orders.controller.js';
import { EmailProcessor } from './processors/email.processor.js';
import { OrderProcessor, WarehouseProcessor } from './processors/order.processor.js';
import { ReportProcessor } from './processors/report.processor.js';
import { ReportsController } from './reports.controller.js';

export interface SampleConfig {
  readonly redisUrl: string;
  /** Key prefix, so the demo and tests never touch other data on the server. */
  readonly prefix: string;
  /** How long shutdown lets running jobs finish, in ms. */
  readonly shutdownTimeout?: number;
  /** Wake-ups over NATS instead of Redis pub/sub (SPOOL_NOTIFY=nats). */
  readonly nats?: { readonly servers: string; readonly kvBucket?: string };
}

/** The sample app: emails, an order flow over two queues, and tenant-grouped reports. */
@Module({})
export class AppModule {
  static forRedis(config: SampleConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        QueueModule.forRoot({
          connection: { url: config.redisUrl, prefix: config.prefix },
          workers: { shutdownTimeout: config.shutdownTimeout ?? 10_000 },
          ...(config.nats && { notify: { nats: config.nats } }),
        }),
        QueueModule.registerQueue(
          { name: 'emails', jobs: { send: SendEmailDto }, defaultJobOptions: { removeOnComplete: { age: 3600 } } },
          'orders',
          { name: 'warehouse', jobs: { pick: PickDto } },
          // A tenant with 20 reports waiting gets 429 + Retry-After for the 21st (SpoolExceptionFilter, see create-app.ts).
          { name: 'reports', limits: { groupConcurrency: 2, maxWaitingPerGroup: 20 } },
        ),
        QueueModule.registerFlowProducer(),
        // GET /metrics; a registry of its own, so two apps in one process (the tests) do not share metrics.
        SpoolPrometheusModule.forRoot({ registry: new Registry() }),
        // Operator pages at /queues, behind basic auth (sample/dashboard-guard.ts).
        QueueDashboardModule.forRoot({ path: '/queues', guard: DashboardGuard }),
      ],
      controllers: [JobsController, OrdersController, ReportsController, HealthController, MetricsController],
      providers: [EmailProcessor, OrderProcessor, WarehouseProcessor, ReportProcessor],
    };
  }
}
