import type { SpoolConnections } from './connections.js';

/** One connection's answer to a readiness check. */
export interface SpoolConnectionHealth {
  readonly ok: boolean;
  /** PING round trip, when it answered. */
  readonly latencyMs?: number;
  /** Why it did not, when it did not. */
  readonly error?: string;
}

/** What `SpoolHealth.check()` found: whether every connection answered, and each one's answer. */
export interface SpoolHealthReport {
  /** Every connection answered within the timeout. */
  readonly ok: boolean;
  readonly connections: Readonly<Record<string, SpoolConnectionHealth>>;
}

/**
 * Readiness of the module's Redis connections, for a /health or /ready
 * endpoint (Kubernetes readiness probe, load balancer check). Inject it.
 *
 * @example
 * \@Get('ready') async ready() {
 *   const report = await this.health.check();
 *   if (!report.ok) throw new ServiceUnavailableException(report);
 *   return report;
 * }
 */
export class SpoolHealth {
  constructor(private readonly connections: SpoolConnections) {}

  /** PINGs every connection at once; one that does not answer within `timeoutMs` (default 1,000) is not ok. */
  async check(timeoutMs = 1000): Promise<SpoolHealthReport> {
    const names = this.connections.names;
    const results = await Promise.all(names.map((name) => this.one(name, timeoutMs)));
    const connections = Object.fromEntries(names.map((name, i) => [name, results[i]!]));
    return { ok: results.every((r) => r.ok), connections };
  }

  private async one(name: string, timeoutMs: number): Promise<SpoolConnectionHealth> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const latency = await Promise.race([this.connections.get(name).ping(), late]);
      return { ok: true, latencyMs: Math.round(latency * 10) / 10 };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    } finally {
      clearTimeout(timer);
    }
  }
}
