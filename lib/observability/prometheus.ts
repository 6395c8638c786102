// The `spool/prometheus` entry point: Prometheus metrics of Spool queues.
// prom-client is an optional peer dependency: only this entry point loads it.
export { SpoolPrometheus } from './prometheus-collector.js';
export type { SpoolPrometheusOptions, MetricsSource } from './prometheus-collector.js';
export { SpoolPrometheusModule } from '../nest/prometheus.module.js';
export type { SpoolPrometheusModuleOptions } from '../nest/prometheus.module.js';
