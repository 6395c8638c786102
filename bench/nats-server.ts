import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The bench's own `nats-server -js`: a free loopback port (never the system
 * 4222), a JetStream store directory in tmp, stopped by its own pid.
 */
export class BenchNats {
  private constructor(readonly port: number, private readonly child: ChildProcess, private readonly dir: string) {}

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<BenchNats> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'spool-bench-nats-'));
    const child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
    const spawned = new Promise<never>((_, reject) => child.once('error', () => reject(new Error('nats-server is not on PATH: sudo apt-get install -y nats-server'))));
    await Promise.race([waitForInfo(port), spawned]);
    return new BenchNats(port, child, dir);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function waitForInfo(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = new Socket();
      const done = (v: boolean) => {
        socket.destroy();
        resolve(v);
      };
      socket.setTimeout(500, () => done(false));
      socket.once('error', () => done(false));
      socket.once('data', (d) => done(d.toString().startsWith('INFO')));
      socket.connect(port, '127.0.0.1');
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nats-server on port ${port} did not greet within 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
