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

export function freePort(): Promise<number> {
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
 * REDIS_URL when it is set and a server answers there; otherwise a private
 * redis-server on a free loopback port that stop() ends (only the process
 * this started). Never falls back to a system Redis on 6379: the demo must
 * not write into someone else's server unless told to.
 */
export async function redisForDemo(): Promise<LocalRedis> {
  const url = process.env.REDIS_URL;
  if (url) {
    const parsed = new URL(url);
    if (await answersPing(parsed.hostname, Number(parsed.port || 6379))) return { url, stop: async () => undefined };
    process.stderr.write(`no Redis answers at REDIS_URL=${url}; starting a private redis-server instead\n`);
  }
  const port = await freePort();
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', mkdtempSync(join(tmpdir(), 'spool-demo-'))],
    { stdio: 'ignore' },
  );
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (err) =>
      reject(new Error(`redis-server could not be started (${err.message}); run "bash .ci/setup" or "sudo apt-get install -y redis-server", or set REDIS_URL`)),
    ),
  );
  const ready = (async () => {
    for (let i = 0; i < 400; i++) {
      if (await answersPing('127.0.0.1', port)) return;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGTERM');
    throw new Error(`the private redis-server on port ${port} did not answer PING`);
  })();
  await Promise.race([ready, failed]);
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
