import { ErrorReply } from 'redis';
import { SpoolError } from '../common/errors.js';
import type { SpoolLogger } from '../logger.js';
import type { RedisClientLike } from './redis-client.js';

/**
 * The server cannot run Spool (too old), or breaks a setting you required (requireNoEviction).
 *
 * Do: upgrade to Redis 7.0 or newer; for requireNoEviction, set
 * `maxmemory-policy noeviction` (and grant +info or +config|get), or drop the option.
 */
export class UnsupportedServerError extends SpoolError {}

/** Reads one `field:value` line of an INFO reply. */
export function infoField(info: string, field: string): string | undefined {
  const match = new RegExp(`^${field}:(.*)$`, 'm').exec(info);
  return match?.[1]?.trim();
}

/** The checks a store makes of the server when it connects. */
export interface ServerCheckOptions {
  /** Throw instead of warning when maxmemory-policy is not noeviction (or cannot be read). */
  readonly requireNoEviction?: boolean;
}

/** A command the server refused with an error reply, not a network failure (that one is thrown on). */
interface Refusal {
  readonly command: string;
  readonly error: ErrorReply;
}

type Answer = { readonly reply: unknown } | { readonly refused: Refusal };

/**
 * Runs one read a check needs. Managed Redis services take INFO, CONFIG or
 * CLIENT away in their own ways (an ACL's NOPERM, a renamed or disabled
 * command): such an error reply is a refusal the check works around or
 * reports, never a reason to fail the connect.
 */
async function ask(client: RedisClientLike, args: readonly string[]): Promise<Answer> {
  try {
    return { reply: await client.sendCommand([...args]) };
  } catch (err) {
    if (err instanceof ErrorReply) return { refused: { command: args[0]!.toUpperCase(), error: err } };
    throw err;
  }
}

/** "INFO and CONFIG are not allowed for this user", or what the server said when it was not a permission. */
function refusedText(refusals: readonly Refusal[]): string {
  const names = refusals.map((r) => r.command).join(' and ');
  if (refusals.every((r) => r.error.message.startsWith('NOPERM'))) return `${names} ${refusals.length > 1 ? 'are' : 'is'} not allowed for this user`;
  return `${names} failed (${refusals.map((r) => r.error.message).join('; ')})`;
}

/** A field of a RESP2 flat [name, value, ...] reply or a RESP3 map (HELLO, CONFIG GET). */
function replyField(reply: unknown, field: string): string | undefined {
  if (Array.isArray(reply)) {
    const at = reply.findIndex((item, i) => i % 2 === 0 && String(item) === field);
    return at < 0 ? undefined : String(reply[at + 1]);
  }
  if (reply instanceof Map) return reply.has(field) ? String(reply.get(field)) : undefined;
  if (typeof reply === 'object' && reply !== null && field in reply) return String((reply as Record<string, unknown>)[field]);
  return undefined;
}

/**
 * Refuses Redis older than 7 (the scripts use 7.0 commands and script-effects
 * replication) and warns when the eviction policy could drop job keys: an
 * evicted job hash or index loses jobs silently. A check the user may not
 * make (INFO, HELLO, CONFIG refused) is one warning naming what it could not
 * read, never a failed connect. The caller runs this once per connect(), so
 * each line comes once, not at every reconnect.
 */
export async function checkServer(client: RedisClientLike, logger: SpoolLogger, options: ServerCheckOptions = {}): Promise<void> {
  const info = await ask(client, ['INFO', 'server']);
  await checkVersion(client, logger, info);
  // INFO refused once is refused for every section: straight to CONFIG.
  const memory = 'refused' in info ? info : await ask(client, ['INFO', 'memory']);
  await checkPolicy(client, logger, memory, options);
}

async function checkVersion(client: RedisClientLike, logger: SpoolLogger, info: Answer): Promise<void> {
  let version: string | undefined;
  if ('reply' in info) {
    version = infoField(String(info.reply), 'redis_version') ?? '0';
  } else {
    const hello = await ask(client, ['HELLO']);
    if ('refused' in hello) {
      logger.warn(`cannot read the Redis version: ${refusedText([info.refused, hello.refused])} (Spool needs Redis 7.0 or newer: an older server fails on the first script call)`);
      return;
    }
    version = replyField(hello.reply, 'version') ?? '0';
  }
  const major = Number(version.split('.')[0]);
  if (!(major >= 7)) {
    throw new UnsupportedServerError(`Redis ${version} is too old: Spool needs Redis 7.0 or newer; upgrade the server`);
  }
}

async function checkPolicy(client: RedisClientLike, logger: SpoolLogger, memory: Answer, options: ServerCheckOptions): Promise<void> {
  let policy: string | undefined;
  if ('reply' in memory) {
    policy = infoField(String(memory.reply), 'maxmemory_policy');
  } else {
    const config = await ask(client, ['CONFIG', 'GET', 'maxmemory-policy']);
    if ('refused' in config) {
      const cannot = `cannot read maxmemory-policy: ${refusedText([memory.refused, config.refused])}`;
      if (options.requireNoEviction) {
        throw new UnsupportedServerError(`${cannot}; RedisStore options.requireNoEviction refuses to run without knowing it is "noeviction": grant +info or +config|get, or drop requireNoEviction`);
      }
      logger.warn(`${cannot} (Spool needs "noeviction": make sure the server has it, or Redis may evict job keys and lose jobs)`);
      return;
    }
    policy = replyField(config.reply, 'maxmemory-policy');
  }
  if (policy && policy !== 'noeviction') {
    const message = `Redis maxmemory-policy is "${policy}": under memory pressure Redis may evict job keys and lose jobs; set it to "noeviction" (CONFIG SET maxmemory-policy noeviction)`;
    if (options.requireNoEviction) throw new UnsupportedServerError(`${message}. RedisStore options.requireNoEviction refuses to run otherwise`);
    logger.warn(message);
  }
}
