import type { SpoolLogger } from '../logger.js';
import { RedisUnavailableError } from './errors.js';

/** How often a running outage checks whether the connection is back, in ms. */
const PROBE_MS = 250;

/** True for the errors an outage is expected to cause: reported without a stack. */
export function isNetworkError(err: unknown): boolean {
  return err instanceof RedisUnavailableError;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * What one store's connection logs while Redis is unreachable, so that an
 * outage reads as a few lines a person can act on instead of one error with
 * a stack per timer per queue:
 * - one error line when the connection is lost;
 * - at most one summary line per `intervalMs` while it stays down, counting
 *   the calls that failed meanwhile and what they were;
 * - one line when it is back: "Redis reconnected after 7.1 s".
 * Everyone using the store (its clients, its workers) reports here.
 */
export class OutageLog {
  private downSince: number | undefined;
  /** performance.now() when the outage began: the connection must answer after it. */
  private downAt = 0;
  private lastSummary = 0;
  /** What failed since the last line: how often, and for which queues. */
  private readonly failures = new Map<string, { n: number; queues: Set<string> }>();
  private failedInOutage = 0;
  private probe: NodeJS.Timeout | undefined;
  /** The store disconnected: a client's late error or a call failing after it starts no outage (and no probe). */
  private closed = false;

  constructor(
    private readonly logger: SpoolLogger,
    private readonly intervalMs: number,
    /** Whether the store's command connection answers again, having answered after `since` (a performance.now() time). */
    private readonly isReady: (since: number) => boolean,
  ) {}

  /** True between the loss of the connection and its return. */
  get down(): boolean {
    return this.downSince !== undefined;
  }

  /** The connection dropped (or a call found it down). Logs once per outage. */
  lost(cause: string): void {
    if (this.downSince !== undefined || this.closed) return;
    this.downSince = Date.now();
    this.downAt = performance.now();
    this.lastSummary = this.downSince;
    this.failures.clear();
    this.failedInOutage = 0;
    this.logger.error(`Redis is unreachable (${cause}); reconnecting. Calls that fail meanwhile are summarized every ${seconds(this.intervalMs)}`);
    this.probe = setInterval(() => this.check(), PROBE_MS);
    this.probe.unref();
  }

  /** A call failed because Redis is unreachable: counted into the next summary. */
  failed(what: string, err: unknown, queue?: string): void {
    if (this.closed) return;
    if (this.downSince === undefined) this.lost(`${what}${queue === undefined ? '' : ` (queue "${queue}")`}: ${err instanceof Error ? err.message : String(err)}`);
    const entry = this.failures.get(what) ?? { n: 0, queues: new Set<string>() };
    entry.n += 1;
    if (queue !== undefined) entry.queues.add(queue);
    this.failures.set(what, entry);
    this.failedInOutage += 1;
  }

  /** The connection is ready again. */
  recovered(): void {
    if (this.downSince === undefined) return;
    const failed = this.failedInOutage;
    this.logger.log(`Redis reconnected after ${seconds(Date.now() - this.downSince)}${failed ? ` (${failed} calls failed meanwhile)` : ''}`);
    this.downSince = undefined;
    this.failures.clear();
    clearInterval(this.probe);
    this.probe = undefined;
  }

  /** Stops the probe for good (the store is closing). */
  close(): void {
    this.closed = true;
    clearInterval(this.probe);
    this.probe = undefined;
    this.downSince = undefined;
  }

  private check(): void {
    if (this.downSince === undefined) return;
    if (this.isReady(this.downAt)) {
      this.recovered();
      return;
    }
    const now = Date.now();
    if (now - this.lastSummary < this.intervalMs) return;
    this.lastSummary = now;
    const detail = [...this.failures].map(([what, { n, queues }]) => `${what} x${n}${queues.size ? ` (${[...queues].sort().join(', ')})` : ''}`).join('; ');
    this.logger.warn(`Redis still unreachable after ${seconds(now - this.downSince)}: ${this.total()} calls failed since the last line${detail ? ` (${detail})` : ''}`);
    this.failures.clear();
  }

  private total(): number {
    let n = 0;
    for (const entry of this.failures.values()) n += entry.n;
    return n;
  }
}
