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

  /** `wrapper`: a command line redis-server runs under (bench/redis-instructions.mjs: valgrind). */
  static async start(wrapper: readonly string[] = []): Promise<BenchRedis> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'spool-bench-redis-'));
    const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
    const [command, ...rest] = [...wrapper, 'redis-server', ...args];
    const child = spawn(command!, rest, { stdio: 'ignore' });
    const spawned = new Promise<never>((_, reject) => child.once('error', () => reject(new Error(`${command} is not on PATH: sudo apt-get install -y ${command}`))));
    await Promise.race([waitForPing(port, wrapper.length > 0 ? 60_000 : 10_000), spawned]);
    return new BenchRedis(port, child, dir);
  }

  /** The process id of redis-server (of its wrapper, which runs it in place: valgrind). */
  get pid(): number {
    return this.child.pid!;
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

async function waitForPing(port: number, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await ping(port))) {
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer within ${withinMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
