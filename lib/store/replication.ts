import type { SpoolLogger } from '../logger.js';
import { ErrorReply } from 'redis';
import { CommandTimeoutError, RedisUnavailableError, ScriptError, StoreError } from './errors.js';
import type { RedisClientLike } from './redis-client.js';
import type { ScriptName } from './scripts.js';

/**
 * A write was not confirmed by a replica (durability 'replicated'): none
 * confirmed it within replicationTimeoutMs, or the master that ran it was
 * demoted to a replica before WAIT (a failover while the write was in
 * flight, which may have lost it). The write may or may not survive; a
 * worker repeats its completion (checked against the job's lease token).
 *
 * Do: retry the add with the same jobId (idempotent); check the replicas
 * (`INFO replication`), or raise `replicationTimeoutMs`.
 */
export class ReplicationTimeoutError extends StoreError {
  constructor(
    readonly script: string,
    readonly timeoutMs: number,
    /** True when the node that ran the write was no longer a master at WAIT. */
    readonly demoted = false,
    options?: ErrorOptions,
  ) {
    super(
      demoted
        ? `${script}: not confirmed: the master that ran it was demoted to a replica before a replica confirmed it (a failover; durability 'replicated'); ` +
            'the write may be lost: retry with the same jobId (idempotent)'
        : `${script}: written on the master, but no replica confirmed it within ${timeoutMs} ms (durability 'replicated'); ` +
            'not confirmed: check that the master has a live replica, or retry with the same jobId (idempotent)',
      false,
      options,
    );
  }
}

/** WAIT's answer on a node that is a replica by now: the master that ran the write lost its role meanwhile. */
const DEMOTED = /^ERR WAIT cannot be used with replica instances/;

/** Writes a producer is acknowledged for: a shortfall rejects the call (the producer can add again by jobId). A demoted master rejects every write below. */
const PRODUCER_WRITES: ReadonlySet<ScriptName> = new Set<ScriptName>(['add', 'flowAdd', 'flowCommit']);
/** Other writes a caller is acknowledged for: a shortfall is logged, the outcome stands. */
const OTHER_WRITES: ReadonlySet<ScriptName> = new Set<ScriptName>([
  'complete', 'fail', 'cancel', 'childDone', 'outboxAck', 'redrive', 'redriveBulk', 'remove', 'schedulerUpsert', 'schedulerRemove',
]);

/** At most one "not replicated" warning per this many ms. */
const WARN_EVERY_MS = 30_000;

/**
 * durability 'replicated': after a write a caller is acknowledged for, WAIT
 * 1 <timeout> on the very connection the write went over (on a cluster, the
 * node that served the script: ClusterClient.sendServed), so the reply comes
 * once a replica has it. Redis replication stays asynchronous: WAIT narrows the
 * window in which a failover loses an acknowledged write, it does not make
 * Redis a consensus store (docs/operations/cluster.md).
 */
export class ReplicaWait {
  private lastWarning = 0;

  constructor(private readonly timeoutMs: number, private readonly logger: SpoolLogger) {}

  /** Whether `name` is followed by a WAIT. */
  covers(name: ScriptName): boolean {
    return PRODUCER_WRITES.has(name) || OTHER_WRITES.has(name);
  }

  /** WAIT on `connection`, the one that ran `name`. */
  async after(name: ScriptName, connection: RedisClientLike): Promise<void> {
    let replicas: number;
    try {
      replicas = Number(await connection.sendCommand(['WAIT', '1', String(this.timeoutMs)]));
    } catch (err) {
      // Not only adds: a completion written on a master demoted meanwhile may be lost, so the worker repeats it.
      if (err instanceof ErrorReply && DEMOTED.test(err.message)) throw new ReplicationTimeoutError(name, this.timeoutMs, true, { cause: err });
      if (err instanceof ErrorReply) throw new ScriptError(`${name} (WAIT)`, err);
      if (err instanceof CommandTimeoutError) throw err.about(`${name} (WAIT for a replica)`);
      if (err instanceof StoreError) throw err;
      throw new RedisUnavailableError(`${name} (WAIT for a replica)`, err);
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
