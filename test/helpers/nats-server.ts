import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis-server.mjs';

const INSTALL_HINT = 'nats-server is not on PATH: install it with "sudo apt-get install -y nats-server" (bash .ci/setup does)';

/** Resolves when a NATS server on `port` greets with INFO; false after one try. */
function greets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (data) => done(data.toString().startsWith('INFO')));
    socket.connect(port, '127.0.0.1');
  });
}

/**
 * A private `nats-server -js` for tests: a free loopback port (never the
 * machine's 4222), its own JetStream store directory in tmp, stopped by the
 * pid it started. restart() keeps the port and the directory (KV buckets
 * survive, as they would on a real restart).
 */
export class NatsServer {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'spool-nats-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<NatsServer> {
    const probe = spawnSync('nats-server', ['--version'], { encoding: 'utf8' });
    if (probe.error || probe.status !== 0) throw new Error(INSTALL_HINT);
    for (let attempt = 0; ; attempt++) {
      const server = new NatsServer(await freePort());
      try {
        await server.launch();
        return server;
      } catch (err) {
        rmSync(server.dir, { recursive: true, force: true });
        // Another process may have taken the port between freePort() and the bind.
        if (attempt >= 4) throw err;
      }
    }
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  private async launch(): Promise<void> {
    const child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.dir], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
    this.child = child;
    const deadline = Date.now() + 10_000;
    while (!(await greets(this.port))) {
      if (!this.running) throw new Error(`nats-server exited with code ${child.exitCode}: ${stderr.trim()}`);
      if (Date.now() > deadline) throw new Error(`nats-server on port ${this.port} did not greet within 10 s`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** SIGTERM to our own pid, and wait for the exit. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.launch();
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
