import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The one redis-server a bench run uses: started on a free loopback port
 * (never the system 6379), no persistence, stopped by its own pid.
 */
export class BenchRedis {
  private constructor(readonly port: number, private readonly child: ChildProcess, private readonly dir: string) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<BenchRedis> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'spool-bench-redis-'));
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
      stdio: 'ignore',
    });
    const spawned = new Promise<never>((_, reject) => child.once('error', () => reject(new Error('redis-server is not on PATH: sudo apt-get install -y redis-server'))));
    await Promise.race([waitForPing(port), spawned]);
    return new BenchRedis(port, child, dir);
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

function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
  });
}

async function waitForPing(port: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await ping(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within 10 s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
