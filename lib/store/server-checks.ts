import { SpoolError } from '../common/errors.js';
import type { SpoolLogger } from '../logger.js';
import type { RedisClientLike } from './redis-client.js';

/** The server cannot run Spool (too old), or breaks a setting you required (requireNoEviction). */
export class UnsupportedServerError extends SpoolError {}

/** Reads one `field:value` line of an INFO reply. */
export function infoField(info: string, field: string): string | undefined {
  const match = new RegExp(`^${field}:(.*)$`, 'm').exec(info);
  return match?.[1]?.trim();
}

export interface ServerCheckOptions {
  /** Throw instead of warning when maxmemory-policy is not noeviction. */
  readonly requireNoEviction?: boolean;
}

/**
 * Refuses Redis older than 7 (the scripts use 7.0 commands and script-effects
 * replication) and warns when the eviction policy could drop job keys: an
 * evicted job hash or index loses jobs silently. The caller runs this once
 * per connect(), so the warning comes once, not at every reconnect.
 */
export async function checkServer(client: RedisClientLike, logger: SpoolLogger, options: ServerCheckOptions = {}): Promise<void> {
  const info = String(await client.sendCommand(['INFO', 'server']));
  const version = infoField(info, 'redis_version') ?? '0';
  const major = Number(version.split('.')[0]);
  if (!(major >= 7)) {
    throw new UnsupportedServerError(`Redis ${version} is too old: Spool needs Redis 7.0 or newer; upgrade the server`);
  }
  const memory = String(await client.sendCommand(['INFO', 'memory']));
  const policy = infoField(memory, 'maxmemory_policy');
  if (policy && policy !== 'noeviction') {
    const message = `Redis maxmemory-policy is "${policy}": under memory pressure Redis may evict job keys and lose jobs; set it to "noeviction" (CONFIG SET maxmemory-policy noeviction)`;
    if (options.requireNoEviction) throw new UnsupportedServerError(`${message}. RedisStore options.requireNoEviction refuses to run otherwise`);
    logger.warn(message);
  }
}
