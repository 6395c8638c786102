import { Logger, Module, type DynamicModule } from '@nestjs/common';
import { SpoolConnections } from '../nest/connections.js';
import { QueueRegistry } from '../nest/queue-registry.js';
import { DashboardAccess } from './access.js';
import { dashboardController } from './controller.js';
import {
  DASHBOARD_ASYNC_OPTIONS_TYPE,
  DASHBOARD_OPTIONS,
  DASHBOARD_OPTIONS_TYPE,
  DEFAULT_DASHBOARD_PATH,
  DashboardModuleClass,
  normalizePath,
  validateDashboardOptions,
} from './options.js';
import { DashboardService } from './service.js';

function withPages(definition: DynamicModule, path: string | undefined): DynamicModule {
  const base = normalizePath(path ?? DEFAULT_DASHBOARD_PATH);
  return {
    ...definition,
    controllers: [dashboardController(base)],
    providers: [
      ...(definition.providers ?? []),
      {
        provide: DashboardService,
        useFactory: (options: unknown, registry: QueueRegistry, connections: SpoolConnections) => {
          validateDashboardOptions(options);
          if (options.guard === undefined) {
            new Logger('SpoolDashboard').warn(`the read-only dashboard at ${base} has no guard: anyone who reaches the app can read job data there (pass guard: to QueueDashboardModule.forRoot)`);
          }
          return new DashboardService(options, registry, connections, base);
        },
        inject: [DASHBOARD_OPTIONS, QueueRegistry, SpoolConnections],
      },
      DashboardAccess,
    ],
  };
}

/**
 * Operator pages for every queue the app registered, mounted in the app
 * (Express or Fastify): overview, queue, job, and actions behind the guard
 * with CSRF tokens. Needs QueueModule.forRoot in the app.
 *
 * @example
 * QueueDashboardModule.forRoot({ path: '/queues', guard: AdminGuard })
 */
@Module({})
export class QueueDashboardModule extends DashboardModuleClass {
  static override forRoot(options: typeof DASHBOARD_OPTIONS_TYPE): DynamicModule {
    // NOTE: checked here too (not only in the provider at bootstrap), so a
    // dashboard without a guard is refused before any connection opens.
    validateDashboardOptions(options);
    return withPages(super.forRoot(options), options.path);
  }

  /** Options from a factory, class or existing provider; `path` stays beside them (routes are fixed when the module is defined). */
  static override forRootAsync(options: typeof DASHBOARD_ASYNC_OPTIONS_TYPE): DynamicModule {
    return withPages(super.forRootAsync(options), options.path);
  }
}
