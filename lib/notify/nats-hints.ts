import type { KV } from '@nats-io/kv';

/** How often a compare-and-swap is tried again after another writer changed the count (seed 003: 5). */
const CAS_ATTEMPTS = 5;
/** JetStream's "wrong last sequence": the revision we read is no longer the latest. */
const WRONG_LAST_SEQUENCE = 10071;

function isConflict(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === WRONG_LAST_SEQUENCE || (err instanceof Error && /wrong last sequence|key exists/i.test(err.message));
}

/**
 * The wake-hint budget in a JetStream KV bucket (the bucket's TTL, 60 s,
 * expires forgotten counts): one key per queue holds how many woken workers
 * may still claim. Publishers add to it, woken workers take from it, both by
 * revision compare-and-swap (kv.update with the revision read), retried a
 * bounded number of times. The NATS counterpart of the Redis hint key that
 * includes/wake and claim-batch keep inside their scripts.
 */
export class KvHints {
  constructor(
    private readonly kv: KV,
    private readonly keyOf: (queue: string) => string,
  ) {}

  /** Adds `n` to the queue's budget (before the wake-up is published). */
  async provide(queue: string, n: number): Promise<void> {
    const key = this.keyOf(queue);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      try {
        if (!entry || entry.operation !== 'PUT') await this.kv.create(key, String(n));
        else await this.kv.update(key, String(count(entry.string()) + n), entry.revision);
        return;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
    // Lost every race to other publishers: they raised the budget too, so workers still wake.
  }

  /**
   * Takes up to `want` from the budget; returns how many it took. No key (never
   * set, or expired): `want`, since no wake-up may go unanswered. Every
   * attempt lost to another worker: 0 (they took the hints).
   */
  async take(queue: string, want: number): Promise<number> {
    const key = this.keyOf(queue);
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const entry = await this.kv.get(key);
      if (!entry || entry.operation !== 'PUT') return want;
      const left = count(entry.string());
      if (left <= 0) return 0;
      const taken = Math.min(left, want);
      try {
        await this.kv.update(key, String(left - taken), entry.revision);
        return taken;
      } catch (err) {
        if (!isConflict(err)) throw err;
      }
    }
    return 0;
  }
}

function count(text: string): number {
  const n = Number(text);
  return Number.isFinite(n) ? n : 0;
}
