import { Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { assertKnownKeys, assertPlainObject } from '../engine/options.js';
import { SpoolPrometheus } from '../observability/prometheus-collector.js';
import { QueueRegistry } from './queue-registry.js';
import { DEFAULT_CONNECTION } from './tokens.js';

/** Options of `SpoolPrometheusModule.forRoot()`: the registry, the metric name prefix and the connection. */
export interface SpoolPrometheusModuleOptions {
  /** Where the metrics are registered. Default: prom-client's global registry. */
  readonly registry?: Registry;
  /** Start of every metric name. Default `spool_`. */
  readonly prefix?: string;
  /** Whose queues are exported: a connection name of QueueModule.forRoot. Default: the default connection. */
  readonly connection?: string;
  /** Label counters and the duration histogram by job name too (default true; see SpoolPrometheusOptions.nameLabel). */
  readonly nameLabel?: boolean;
}

/** Takes the collector's metrics out of the registry when the app shuts down. */
class CollectorLifecycle implements OnApplicationShutdown {
  constructor(private readonly collector: SpoolPrometheus) {}

  onApplicationShutdown(): void {
    this.collector.close();
  }
}

/**
 * Registers a SpoolPrometheus collector over every queue the app registered
 * (queues registered later included). Inject `SpoolPrometheus` to reach its
 * registry, e.g. in the controller that serves `GET /metrics`.
 *
 * @example
 * \@Module({ imports: [QueueModule.forRoot({ ... }), SpoolPrometheusModule.forRoot()] })
 * export class AppModule {}
 */
@Module({})
export class SpoolPrometheusModule {
  static forRoot(options: SpoolPrometheusModuleOptions = {}): DynamicModule {
    const given: unknown = options;
    assertPlainObject(given, 'SpoolPrometheusModule.forRoot() options');
    assertKnownKeys(given, ['registry', 'prefix', 'connection', 'nameLabel'], 'SpoolPrometheusModule.forRoot() options');
    const connection = options.connection ?? DEFAULT_CONNECTION;
    return {
      module: SpoolPrometheusModule,
      global: true,
      providers: [
        {
          provide: SpoolPrometheus,
          useFactory: (queues: QueueRegistry) => new SpoolPrometheus({ queues: () => queues.queues(connection), registry: options.registry, prefix: options.prefix, nameLabel: options.nameLabel }),
          inject: [QueueRegistry],
        },
        { provide: CollectorLifecycle, useFactory: (c: SpoolPrometheus) => new CollectorLifecycle(c), inject: [SpoolPrometheus] },
      ],
      exports: [SpoolPrometheus],
    };
  }
}
