import type { DiagnosableStore } from '../engine/doctor.js';
import type { SpoolConnections } from '../nest/connections.js';
import type { QueueRegistry } from '../nest/queue-registry.js';
import type { DashboardReader } from './reader.js';
import type { MetricsPageModel } from './views/metrics.js';
import type { RedisSection, SchedulersPageModel, WorkerRow } from './views/ops.js';

/** Reads the schedulers, metrics, workers and Redis pages, through the engine's public API (Queue, RedisStore). */
export class OpsReader {
  constructor(
    private readonly pages: DashboardReader,
    private readonly registry: QueueRegistry,
    private readonly connections: SpoolConnections,
    private readonly base: string,
  ) {}

  async schedulers(connection: string, name: string, readOnly: boolean): Promise<SchedulersPageModel> {
    const schedulers = await this.pages.queue(connection, name).getSchedulers();
    return { base: this.base, connection, queue: name, schedulers, readOnly, now: Date.now() };
  }

  async metrics(connection: string, name: string): Promise<MetricsPageModel> {
    return { base: this.base, connection, queue: name, metrics: await this.pages.queue(connection, name).getMetrics() };
  }

  /** Every worker of every registered queue (or of one), by queue then host. */
  async workers(only?: string): Promise<WorkerRow[]> {
    const pairs = this.pages.connectionNames().flatMap((c) => this.registry.queues(c).filter((q) => only === undefined || q.name === only).map((q) => [c, q] as const));
    const rows = await Promise.all(pairs.map(async ([connection, q]) => (await q.getWorkers()).map((w) => ({ ...w, connection, queue: q.name }))));
    return rows.flat().sort((a, b) => a.queue.localeCompare(b.queue) || a.hostname.localeCompare(b.hostname) || a.startedAt - b.startedAt);
  }

  /** Each connection's server (one fixed read each) and the jobs its registered queues hold (their counts). */
  async redis(): Promise<RedisSection[]> {
    return Promise.all(
      this.pages.connectionNames().map(async (connection) => {
        const store = this.connections.get(connection) as Partial<DiagnosableStore>;
        const queues = this.registry.queues(connection);
        const [report, counts] = await Promise.all([typeof store.serverReport === 'function' ? store.serverReport() : Promise.resolve(null), Promise.all(queues.map((q) => q.getCounts()))]);
        const jobs = counts.reduce((sum, c) => sum + Object.values(c).reduce((a, b) => a + b, 0), 0);
        return { connection, report, jobs, queues: queues.length };
      }),
    );
  }
}
