// A private redis-server for tests. Plain JavaScript so that jest's global
// setup (which runs outside jest's TypeScript transform) and the TypeScript
// tests share one implementation; types are in redis-server.d.mts.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const INSTALL_HINT =
  'redis-server is not on PATH: install it with "sudo apt-get install -y redis-server" (Redis 7 or newer)';

export function assertRedisInstalled() {
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) throw new Error(INSTALL_HINT);
}

/** A free loopback port (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function ping(port) {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    // A server with requirepass answers NOAUTH: up all the same.
    socket.once('data', (data) => done(/^(\+PONG|-NOAUTH)/.test(data.toString())));
  });
}

/** Resolves when the server on `port` answers PING; rejects after `timeout` ms. */
export async function waitForPing(port, timeout = 10_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await ping(port)) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not answer PING within ${timeout} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A redis-server on a free loopback port, owned by whoever started it: stop(),
 * kill() and restart() only ever signal this server's own pid.
 */
export class RedisServer {
  #child;
  #options;

  constructor(port, options) {
    this.port = port;
    this.paused = false;
    this.#options = options;
    this.dir = mkdtempSync(join(tmpdir(), 'spool-redis-'));
  }

  static async start(options = {}) {
    assertRedisInstalled();
    for (let attempt = 0; ; attempt++) {
      const server = new RedisServer(options.port ?? (await freePort()), options);
      try {
        await server.#launch();
        return server;
      } catch (err) {
        server.#cleanup();
        // Another process may have taken the port between freePort() and the bind.
        if (options.port !== undefined || attempt >= 4) throw err;
      }
    }
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid() {
    return this.#child?.pid;
  }

  get running() {
    const child = this.#child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  async #launch() {
    const args = [
      '--port', String(this.port),
      '--bind', '127.0.0.1',
      '--save', '',
      '--dir', this.dir,
      '--appendonly', this.#options.appendonly ? 'yes' : 'no',
      '--appendfsync', 'always',
      '--daemonize', 'no',
      '--loglevel', 'warning',
      ...(this.#options.args ?? []),
    ];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d.toString()));
    this.#child = child;
    const exited = new Promise((_, reject) =>
      child.once('exit', (code) => reject(new Error(`redis-server exited with code ${code}: ${stderr.trim()}`))),
    );
    exited.catch(() => undefined);
    await Promise.race([waitForPing(this.port), exited]);
  }

  /**
   * SIGSTOP: the process stays, its sockets keep accepting what is sent, and
   * nothing is answered (a hung server, or a link that drops packets without
   * a reset). resume() undoes it; stop() and dispose() resume it first.
   */
  pause() {
    if (!this.running) throw new Error(`redis-server on port ${this.port} is not running`);
    this.#child.kill('SIGSTOP');
    this.paused = true;
  }

  /** SIGCONT after pause(). */
  resume() {
    if (!this.paused) return;
    this.#child?.kill('SIGCONT');
    this.paused = false;
  }

  /** SIGKILL: the server dies without a word, as in a crash. */
  kill() {
    return this.#signal('SIGKILL');
  }

  /** SIGTERM, and wait for the exit. */
  stop() {
    return this.#signal('SIGTERM');
  }

  /** Starts again on the same port and directory (AOF data comes back when appendonly is on). */
  async restart() {
    if (this.running) await this.stop();
    await this.#launch();
  }

  /** Stops the server and removes its directory. */
  async dispose() {
    await this.stop();
    this.#cleanup();
  }

  async #signal(signal) {
    const child = this.#child;
    if (!child || !this.running) return;
    // A stopped process takes SIGTERM only once continued.
    this.resume();
    const exited = new Promise((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    await exited;
  }

  #cleanup() {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
