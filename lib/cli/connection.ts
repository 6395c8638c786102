import { readFileSync } from 'node:fs';
import type { RedisConnection, SentinelConnection, UrlConnection } from '../store/connections/options.js';
import type { TlsSettings } from '../store/connections/tls.js';
import { CliError } from './errors.js';

/** The connection flags every command has (commander's optsWithGlobals()). */
export interface ConnectionFlags {
  readonly url: string;
  /** Comma-separated node URLs of a Redis Cluster, instead of --url. */
  readonly cluster?: string;
  /** `name@host:port,host:port`: the master `name` through these sentinels, instead of --url. */
  readonly sentinel?: string;
  /** PEM files: the CA to trust, the client certificate and its key. */
  readonly tlsCa?: string;
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  /** The master's ACL user with --sentinel (with --url, the user is in the URL). */
  readonly username?: string;
}

/** The URL without its password, for messages. */
export function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/**
 * The flag and environment names of one side of a command: the target (the
 * global --url, --sentinel, --tls-*) or the source of `spool import bullmq`
 * (the same flags with `--from-` in front, environment variables with
 * `BULLMQ_`), so that messages name the flag the user typed.
 */
export interface FlagSide {
  /** `--url` for the target, `--from-url` for the source. */
  readonly flag: (name: 'url' | 'sentinel' | 'username' | 'tls-ca' | 'tls-cert' | 'tls-key') => string;
  readonly urlEnv: string;
  readonly sentinelEnv: string;
  /** The master's password with a sentinel (never a flag: flags show in `ps`). */
  readonly passwordEnv: string;
  /** The sentinels' own password. */
  readonly sentinelPasswordEnv: string;
}

/** Spool's side: the global flags. */
export const TARGET: FlagSide = {
  flag: (name) => `--${name}`,
  urlEnv: 'REDIS_URL',
  sentinelEnv: 'SPOOL_SENTINEL',
  passwordEnv: 'REDIS_PASSWORD',
  sentinelPasswordEnv: 'SPOOL_SENTINEL_PASSWORD',
};

/** BullMQ's side of `spool import bullmq`: `--from-url`, `--from-sentinel`, `--from-tls-ca`... and BULLMQ_* variables. */
export const SOURCE: FlagSide = {
  flag: (name) => `--from-${name}`,
  urlEnv: 'BULLMQ_URL',
  sentinelEnv: 'BULLMQ_SENTINEL',
  passwordEnv: 'BULLMQ_PASSWORD',
  sentinelPasswordEnv: 'BULLMQ_SENTINEL_PASSWORD',
};

function checkUrl(text: string, flag: string, env: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${flag} "${text}" is not a URL: use redis://[user:password@]host:port[/db] (or set ${env})`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new CliError(`${flag} "${safeUrl(text)}" is not a Redis URL: it must start with redis:// or rediss://`);
  }
  return url;
}

function pemFile(path: string | undefined, flag: string): string | undefined {
  if (path === undefined) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new CliError(`${flag} ${path}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
}

/** TLS settings from the side's --tls-ca, --tls-cert, --tls-key, or undefined when none is given. */
function tlsOf(flags: ConnectionFlags, side: FlagSide): TlsSettings | undefined {
  const [caFlag, certFlag, keyFlag] = [side.flag('tls-ca'), side.flag('tls-cert'), side.flag('tls-key')];
  const ca = pemFile(flags.tlsCa, caFlag);
  const cert = pemFile(flags.tlsCert, certFlag);
  const key = pemFile(flags.tlsKey, keyFlag);
  if ((cert === undefined) !== (key === undefined)) throw new CliError(`${cert === undefined ? certFlag : keyFlag} is missing: a client certificate needs both ${certFlag} and ${keyFlag}`);
  if (ca === undefined && cert === undefined) return undefined;
  return { ...(ca !== undefined && { ca }), ...(cert !== undefined && { cert }), ...(key !== undefined && { key }) };
}

/** `name@host:port,host:port` as sentinel settings. */
function sentinelOf(text: string, side: FlagSide): { name: string; sentinels: { host: string; port: number }[] } {
  const flag = side.flag('sentinel');
  const at = text.indexOf('@');
  const usage = `use ${flag} name@host:port[,host:port...] (or ${side.sentinelEnv}), e.g. mymaster@10.0.0.1:26379,10.0.0.2:26379`;
  if (at < 1) throw new CliError(`${flag} "${text}" names no master: ${usage}`);
  const sentinels = text.slice(at + 1).split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const match = /^(.+):(\d{1,5})$/.exec(s);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) throw new CliError(`${flag}: "${s}" is not host:port: ${usage}`);
    return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
  });
  if (sentinels.length === 0) throw new CliError(`${flag} "${text}" names no sentinel: ${usage}`);
  return { name: text.slice(0, at), sentinels };
}

/** Where a connection points and the flag that set it, for messages. */
export interface Described<C> {
  readonly connection: C;
  readonly where: string;
  readonly flag: string;
}

/**
 * One Redis (not a cluster) as the flags describe it: --url (a rediss:// URL
 * with the --tls-* files) or --sentinel with the master's password from
 * REDIS_PASSWORD and the sentinels' from SPOOL_SENTINEL_PASSWORD (never a
 * flag: flags show in `ps`). `side` SOURCE reads the same flags of BullMQ's
 * Redis (`--from-*`, BULLMQ_PASSWORD, BULLMQ_SENTINEL_PASSWORD).
 */
export function nodeConnectionOf(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env, side: FlagSide = TARGET): Described<UrlConnection | SentinelConnection> {
  const tls = tlsOf(flags, side);
  if (flags.sentinel !== undefined) {
    const { name, sentinels } = sentinelOf(flags.sentinel, side);
    const password = env[side.passwordEnv] || undefined;
    const sentinelPassword = env[side.sentinelPasswordEnv] || undefined;
    return {
      connection: {
        sentinel: { name, sentinels, ...(sentinelPassword !== undefined && { password: sentinelPassword }) },
        ...(flags.username !== undefined && { username: flags.username }),
        ...(password !== undefined && { password }),
        ...(tls && { tls }),
      },
      where: `master "${name}" of sentinels ${sentinels.map((s) => `${s.host}:${s.port}`).join(', ')}`,
      flag: `${side.flag('sentinel')} or ${side.sentinelEnv}`,
    };
  }
  const urlFlag = side.flag('url');
  const url = checkUrl(flags.url, urlFlag, side.urlEnv);
  if (tls && url.protocol !== 'rediss:') {
    throw new CliError(`${side.flag('tls-ca')}, ${side.flag('tls-cert')} and ${side.flag('tls-key')} need a rediss:// URL, got "${safeUrl(flags.url)}"`);
  }
  return { connection: { url: flags.url, ...(tls && { tls }) }, where: safeUrl(flags.url), flag: `${urlFlag} or ${side.urlEnv}` };
}

/** The connection the global flags describe, as the store takes it: --cluster, else one Redis (nodeConnectionOf). */
export function connectionOf(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): Described<RedisConnection> {
  if (flags.sentinel !== undefined || flags.cluster === undefined) return nodeConnectionOf(flags, env, TARGET);
  const tls = tlsOf(flags, TARGET);
  const urls = flags.cluster.split(',').map((u) => u.trim()).filter(Boolean);
  if (urls.length === 0) throw new CliError('--cluster names no node: give one or more redis:// URLs, comma-separated');
  for (const each of urls) checkUrl(each, '--cluster', 'SPOOL_CLUSTER');
  return { connection: { cluster: { rootNodes: urls.map((url) => ({ url })) }, ...(tls && { tls }) }, where: urls.map(safeUrl).join(', '), flag: '--cluster or SPOOL_CLUSTER' };
}
