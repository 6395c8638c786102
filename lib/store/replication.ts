import type { SpoolLogger } from '../logger.js';
import { connectionFor } from './cluster-client.js';
import { ErrorReply } from 'redis';
import { RedisUnavailableError, ScriptError, StoreError } from './errors.js';
import type { RedisClientLike } from './redis-client.js';
import type { ScriptName } from './scripts.js';

/**
 * An add was written on its master but no replica confirmed it within
 * replicationTimeoutMs (durability 'replicated'). The job exists unless that
 * master dies before replicating it; adding again with the same jobId is safe.
 */
export class ReplicationTimeoutError extends StoreError {
  constructor(readonly script: string, readonly timeoutMs: number) {
    super(
      `${script}: written on the master, but no replica confirmed it within ${timeoutMs} ms (durability 'replicated'); ` +
        'check that the master has a live replica, or add again with the same jobId (idempotent)',
      false,
    );
  }
}

/** Writes a producer is acknowledged for: a shortfall rejects the call (the producer can add again by jobId). */
const PRODUCER_WRITES: ReadonlySet<ScriptName> = new Set<ScriptName>(['add', 'flowAdd', 'flowCommit']);
/** Other writes a caller is acknowledged for: a shortfall is logged, the outcome stands. */
const OTHER_WRITES: ReadonlySet<ScriptName> = new Set<ScriptName>([
  'complete', 'fail', 'cancel', 'childDone', 'outboxAck', 'redrive', 'redriveBulk', 'remove', 'schedulerUpsert', 'schedulerRemove',
]);

/** At most one "not replicated" warning per this many ms. */
const WARN_EVERY_MS = 30_000;

/**
 * durability 'replicated': after a write a caller is acknowledged for, WAIT
 * 1 <timeout> on the connection the write went over, so the reply comes once
 * a replica has it. Redis replication stays asynchronous: WAIT narrows the
 * window in which a failover loses an acknowledged write, it does not make
 * Redis a consensus store (README "Redis Cluster").
 */
export class ReplicaWait {
  private lastWarning = 0;

  constructor(private readonly timeoutMs: number, private readonly logger: SpoolLogger) {}

  /** Whether `name` is followed by a WAIT. */
  covers(name: ScriptName): boolean {
    return PRODUCER_WRITES.has(name) || OTHER_WRITES.has(name);
  }

  async after(name: ScriptName, client: RedisClientLike, key: string): Promise<void> {
    let replicas: number;
    try {
      const connection = await connectionFor(client, key);
      replicas = Number(await connection.sendCommand(['WAIT', '1', String(this.timeoutMs)]));
    } catch (err) {
      throw err instanceof ErrorReply ? new ScriptError(`${name} (WAIT)`, err) : new RedisUnavailableError(`${name} (WAIT for a replica)`, err);
    }
    if (replicas >= 1) return;
    if (PRODUCER_WRITES.has(name)) throw new ReplicationTimeoutError(name, this.timeoutMs);
    const now = Date.now();
    if (now - this.lastWarning >= WARN_EVERY_MS) {
      this.lastWarning = now;
      this.logger.warn(`RedisStore durability 'replicated': ${name} was not confirmed by a replica within ${this.timeoutMs} ms; it stands on the master only`);
    }
  }
}
