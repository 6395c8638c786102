import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertRedisInstalled, freePort } from './redis-server.mjs';

/** PEM files of a throw-away CA, a server certificate for 127.0.0.1/localhost and a client certificate, all signed by the CA. */
export interface TestCertificates {
  readonly dir: string;
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** The CA certificate (PEM): what a client passes as `tls.ca`. */
  readonly ca: string;
  /** The client certificate and key (PEM): `tls.cert`, `tls.key`. */
  readonly cert: string;
  readonly key: string;
}

function openssl(dir: string, args: readonly string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A P-256 key and a certificate for `cn` signed by the CA in `dir`, with `san` as subjectAltName. */
function signed(dir: string, name: string, cn: string, san?: string): void {
  openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, san ? `subjectAltName=${san}\n` : 'extendedKeyUsage=clientAuth\n');
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.crt`, '-days', '2', '-extfile', ext]);
}

/** Makes a CA, a server and a client certificate with `openssl` in a fresh temp dir (removed by TlsRedis.dispose()). */
export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'spool-tls-'));
  openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=spool-test-ca']);
  signed(dir, 'server', 'localhost', 'DNS:localhost,IP:127.0.0.1');
  signed(dir, 'client', 'spool-test-client');
  const read = (file: string): string => readFileSync(join(dir, file), 'utf8');
  return { dir, caFile: join(dir, 'ca.crt'), certFile: join(dir, 'client.crt'), keyFile: join(dir, 'client.key'), ca: read('ca.crt'), cert: read('client.crt'), key: read('client.key') };
}

/** Resolves once a TLS handshake with the server (and a PING) succeeds; rejects after `timeout` ms. */
async function waitForTlsPing(port: number, certs: TestCertificates, timeout = 10_000): Promise<void> {
  const deadline = Date.now() + timeout;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, ca: certs.ca, cert: certs.cert, key: certs.key, servername: 'localhost' }, () => socket.write('PING\r\n'));
      socket.setTimeout(500, () => (socket.destroy(), resolve(false)));
      socket.once('error', () => resolve(false));
      socket.once('data', (d) => (socket.destroy(), resolve(d.toString().startsWith('+PONG'))));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`redis-server did not answer PING over TLS on port ${port} within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A redis-server that speaks TLS only (`--port 0 --tls-port <free port>`),
 * with a CA of its own and client certificates required
 * (`--tls-auth-clients yes`): one per test file, stopped by its pid.
 */
export class TlsRedis {
  private constructor(
    readonly port: number,
    readonly certs: TestCertificates,
    private readonly child: ChildProcess,
  ) {}

  static async start(args: readonly string[] = []): Promise<TlsRedis> {
    assertRedisInstalled();
    const certs = makeCertificates();
    const port = await freePort();
    const child = spawn(
      'redis-server',
      [
        '--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', certs.dir, '--loglevel', 'warning',
        '--tls-cert-file', join(certs.dir, 'server.crt'), '--tls-key-file', join(certs.dir, 'server.key'), '--tls-ca-cert-file', certs.caFile, '--tls-auth-clients', 'yes',
        ...args,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`redis-server (TLS) exited with code ${code}: ${stderr.trim()}`))));
    exited.catch(() => undefined);
    const server = new TlsRedis(port, certs, child);
    try {
      await Promise.race([waitForTlsPing(port, certs), exited]);
    } catch (err) {
      await server.dispose();
      throw err;
    }
    return server;
  }

  /** `rediss://127.0.0.1:<port>` (createAclUsers() adds `user:password@`). */
  get url(): string {
    return `rediss://127.0.0.1:${this.port}`;
  }

  /** The `tls` option a client of this server passes: the test CA, the client certificate. */
  get tls(): { ca: string; cert: string; key: string } {
    return { ca: this.certs.ca, cert: this.certs.cert, key: this.certs.key };
  }

  /** node-redis client options for an admin connection (createAclUsers' `admin`). */
  get clientOptions(): { socket: { tls: true; ca: string; cert: string; key: string } } {
    return { socket: { tls: true, ...this.tls } };
  }

  async dispose(): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.certs.dir, { recursive: true, force: true });
  }
}
