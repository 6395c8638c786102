import { InvalidArgumentError, UnknownOptionError } from '../../common/errors.js';
import { describe, unknownKeys } from '../../common/validation.js';

/** PEM text or its bytes (read the file yourself: `readFileSync('ca.pem')`). */
export type Pem = string | Uint8Array;

/**
 * TLS settings of a connection, as BullMQ/ioredis users write them (Node's
 * `tls.connect()` options of the same names): `ca` to trust a private CA,
 * `cert` and `key` for a client certificate, `servername` for SNI and the
 * name checked in the server's certificate.
 */
export interface TlsSettings {
  readonly ca?: Pem | readonly Pem[];
  readonly cert?: Pem;
  readonly key?: Pem;
  readonly servername?: string;
  /** false accepts any server certificate (tests only: it gives up what TLS is for). Default true. */
  readonly rejectUnauthorized?: boolean;
}

/** `true` for TLS with the system's CAs, or settings. */
export type TlsOption = true | TlsSettings;

export const TLS_KEYS = ['ca', 'cert', 'key', 'servername', 'rejectUnauthorized'] as const satisfies readonly (keyof TlsSettings)[];

const TLS_HINTS = {
  checkServerIdentity: 'set servername to the name in the certificate, or rejectUnauthorized: false in tests',
  passphrase: 'decrypt the key before passing it (Spool takes key as PEM text)',
  pfx: 'pass cert and key as PEM text',
};

function pem(value: unknown): boolean {
  return typeof value === 'string' || value instanceof Uint8Array;
}

/** Checks a `tls` option; the error names the field. */
export function checkTls(value: unknown, field: string): TlsOption | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidArgumentError(field, `must be true or { ca, cert, key, servername, rejectUnauthorized }, got ${describe(value)}`);
  }
  const unknown = unknownKeys(value, TLS_KEYS, field, TLS_HINTS);
  if (unknown.length > 0) throw new UnknownOptionError(unknown);
  const tls = value as Record<string, unknown>;
  const ca = tls.ca;
  if (ca !== undefined && !pem(ca) && !(Array.isArray(ca) && ca.every(pem))) {
    throw new InvalidArgumentError(`${field}.ca`, `must be PEM text (a string or Buffer) or an array of them, got ${describe(ca)}`, "read the file: ca: readFileSync('ca.pem')");
  }
  for (const key of ['cert', 'key'] as const) {
    if (tls[key] !== undefined && !pem(tls[key])) {
      throw new InvalidArgumentError(`${field}.${key}`, `must be PEM text (a string or Buffer), got ${describe(tls[key])}`, `read the file: ${key}: readFileSync('${key}.pem')`);
    }
  }
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    throw new InvalidArgumentError(`${field}.${tls.cert === undefined ? 'cert' : 'key'}`, 'is missing', 'a client certificate needs both cert and key');
  }
  if (tls.servername !== undefined && (typeof tls.servername !== 'string' || tls.servername === '')) {
    throw new InvalidArgumentError(`${field}.servername`, `must be a host name, got ${describe(tls.servername)}`);
  }
  if (tls.rejectUnauthorized !== undefined && typeof tls.rejectUnauthorized !== 'boolean') {
    throw new InvalidArgumentError(`${field}.rejectUnauthorized`, `must be true or false, got ${describe(tls.rejectUnauthorized)}`);
  }
  return tls as TlsSettings;
}

/** node-redis socket options for a TLS connection (`tls: true` plus Node's tls.connect() options). */
export function tlsSocket(tls: TlsOption | undefined): { tls: true; ca?: string | Buffer | (string | Buffer)[]; cert?: string | Buffer; key?: string | Buffer; servername?: string; rejectUnauthorized?: boolean } | undefined {
  if (tls === undefined) return undefined;
  if (tls === true) return { tls: true };
  const buf = (p: Pem): string | Buffer => (typeof p === 'string' ? p : Buffer.from(p));
  return {
    tls: true,
    ...(tls.ca !== undefined && { ca: Array.isArray(tls.ca) ? (tls.ca as readonly Pem[]).map(buf) : buf(tls.ca as Pem) }),
    ...(tls.cert !== undefined && { cert: buf(tls.cert) }),
    ...(tls.key !== undefined && { key: buf(tls.key) }),
    ...(tls.servername !== undefined && { servername: tls.servername }),
    ...(tls.rejectUnauthorized !== undefined && { rejectUnauthorized: tls.rejectUnauthorized }),
  };
}
