/**
 * Prometheus metrics of Spool queues: `SpoolPrometheus` (a prom-client
 * collector) and `SpoolPrometheusModule` for Nest. prom-client is an optional
 * peer dependency: only this entry point loads it.
 *
 * @module spool/prometheus
 */
export { SpoolPrometheus } from './prometheus-collector.js';
export type { SpoolPrometheusOptions, MetricsSource } from './prometheus-collector.js';
export { SpoolPrometheusModule } from '../nest/prometheus.module.js';
export type { SpoolPrometheusModuleOptions } from '../nest/prometheus.module.js';
