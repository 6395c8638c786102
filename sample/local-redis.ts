import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when something answers PING at host:port. */
export function answersPing(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => socket.write('PING\r\n'));
    socket.once('data', (d) => done(d.toString().startsWith('+PONG')));
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface LocalRedis {
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * REDIS_URL when a server answers there; otherwise a private redis-server on
 * a free port that stop() ends (only the process this started).
 */
export async function redisForDemo(): Promise<LocalRedis> {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const parsed = new URL(url);
  if (await answersPing(parsed.hostname, Number(parsed.port || 6379))) return { url, stop: async () => undefined };
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', mkdtempSync(join(tmpdir(), 'spool-demo-'))],
    { stdio: 'ignore' },
  );
  child.on('error', (err) => {
    throw new Error(`no Redis answers at ${url} and redis-server could not be started (${err.message}); install it with "sudo apt-get install -y redis-server"`);
  });
  for (let i = 0; i < 200 && !(await answersPing('127.0.0.1', port)); i++) await new Promise((r) => setTimeout(r, 25));
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
