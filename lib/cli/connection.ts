import { readFileSync } from 'node:fs';
import type { RedisConnection } from '../store/connections/options.js';
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

function checkUrl(text: string, flag: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${flag} "${text}" is not a URL: use redis://[user:password@]host:port[/db] (or set ${flag === '--url' ? 'REDIS_URL' : 'SPOOL_CLUSTER'})`);
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

/** TLS settings from --tls-ca, --tls-cert, --tls-key (SPOOL_TLS_CA, SPOOL_TLS_CERT, SPOOL_TLS_KEY), or undefined when none is given. */
function tlsOf(flags: ConnectionFlags): TlsSettings | undefined {
  const ca = pemFile(flags.tlsCa, '--tls-ca');
  const cert = pemFile(flags.tlsCert, '--tls-cert');
  const key = pemFile(flags.tlsKey, '--tls-key');
  if ((cert === undefined) !== (key === undefined)) throw new CliError(`${cert === undefined ? '--tls-cert' : '--tls-key'} is missing: a client certificate needs both --tls-cert and --tls-key`);
  if (ca === undefined && cert === undefined) return undefined;
  return { ...(ca !== undefined && { ca }), ...(cert !== undefined && { cert }), ...(key !== undefined && { key }) };
}

/** `name@host:port,host:port` as sentinel settings. */
function sentinelOf(text: string): { name: string; sentinels: { host: string; port: number }[] } {
  const at = text.indexOf('@');
  const usage = 'use --sentinel name@host:port[,host:port...] (or SPOOL_SENTINEL), e.g. mymaster@10.0.0.1:26379,10.0.0.2:26379';
  if (at < 1) throw new CliError(`--sentinel "${text}" names no master: ${usage}`);
  const sentinels = text.slice(at + 1).split(',').map((s) => s.trim()).filter(Boolean).map((s) => {
    const match = /^(.+):(\d{1,5})$/.exec(s);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) throw new CliError(`--sentinel: "${s}" is not host:port: ${usage}`);
    return { host: match[1]!.replace(/^\[(.*)\]$/, '$1'), port };
  });
  if (sentinels.length === 0) throw new CliError(`--sentinel "${text}" names no sentinel: ${usage}`);
  return { name: text.slice(0, at), sentinels };
}

/**
 * The connection the flags describe, as the store takes it: --url (a
 * rediss:// URL with the --tls-* files), --cluster, or --sentinel with the
 * master's password from REDIS_PASSWORD and the sentinels' from
 * SPOOL_SENTINEL_PASSWORD (never a flag: flags show in `ps`). Also a text
 * naming where it points, for messages.
 */
export function connectionOf(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env): { connection: RedisConnection; where: string; flag: string } {
  const tls = tlsOf(flags);
  if (flags.sentinel !== undefined) {
    const { name, sentinels } = sentinelOf(flags.sentinel);
    const password = env.REDIS_PASSWORD || undefined;
    const sentinelPassword = env.SPOOL_SENTINEL_PASSWORD || undefined;
    return {
      connection: {
        sentinel: { name, sentinels, ...(sentinelPassword !== undefined && { password: sentinelPassword }) },
        ...(flags.username !== undefined && { username: flags.username }),
        ...(password !== undefined && { password }),
        ...(tls && { tls }),
      },
      where: `master "${name}" of sentinels ${sentinels.map((s) => `${s.host}:${s.port}`).join(', ')}`,
      flag: '--sentinel or SPOOL_SENTINEL',
    };
  }
  if (flags.cluster !== undefined) {
    const urls = flags.cluster.split(',').map((u) => u.trim()).filter(Boolean);
    if (urls.length === 0) throw new CliError('--cluster names no node: give one or more redis:// URLs, comma-separated');
    for (const each of urls) checkUrl(each, '--cluster');
    return { connection: { cluster: { rootNodes: urls.map((url) => ({ url })) }, ...(tls && { tls }) }, where: urls.map(safeUrl).join(', '), flag: '--cluster or SPOOL_CLUSTER' };
  }
  const url = checkUrl(flags.url, '--url');
  if (tls && url.protocol !== 'rediss:') throw new CliError(`--tls-ca, --tls-cert and --tls-key need a rediss:// URL, got "${safeUrl(flags.url)}"`);
  return { connection: { url: flags.url, ...(tls && { tls }) }, where: safeUrl(flags.url), flag: '--url or REDIS_URL' };
}
