import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './local-redis.js';

export interface LocalNats {
  readonly url: string;
  stop(): Promise<void>;
}

/** True when a NATS server greets (INFO) at host:port. */
function greets(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    socket.once('data', (d) => done(d.toString().startsWith('INFO')));
    socket.connect(port, host);
  });
}

/**
 * SPOOL_NOTIFY=nats: NATS_URL when a server greets there; otherwise a
 * private `nats-server -js` on a free loopback port with its own store
 * directory, which stop() ends (only the process this started). Never a
 * system NATS on 4222 unless NATS_URL says so.
 */
export async function natsForDemo(): Promise<LocalNats> {
  const url = process.env.NATS_URL;
  if (url) {
    const parsed = new URL(url);
    if (await greets(parsed.hostname, Number(parsed.port || 4222))) return { url, stop: async () => undefined };
    process.stderr.write(`no NATS answers at NATS_URL=${url}; starting a private nats-server instead\n`);
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'spool-demo-nats-'));
  const child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
  const failed = new Promise<never>((_, reject) =>
    child.once('error', (err) => reject(new Error(`nats-server could not be started (${err.message}); run "bash .ci/setup" or "sudo apt-get install -y nats-server", or set NATS_URL`))),
  );
  const ready = (async () => {
    for (let i = 0; i < 400; i++) {
      if (await greets('127.0.0.1', port)) return;
      if (child.exitCode !== null) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    child.kill('SIGTERM');
    throw new Error(`the private nats-server on port ${port} did not greet`);
  })();
  await Promise.race([ready, failed]);
  return {
    url: `nats://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        const cleanup = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null) return cleanup();
        child.once('exit', cleanup);
        child.kill('SIGTERM');
      }),
  };
}

/** The sample's notify choice: Redis pub/sub unless SPOOL_NOTIFY=nats. */
export async function notifyForDemo(): Promise<{ readonly nats?: { servers: string; kvBucket: string }; stop(): Promise<void> }> {
  const choice = process.env.SPOOL_NOTIFY ?? 'redis';
  if (choice === 'redis') return { stop: async () => undefined };
  if (choice !== 'nats') throw new Error(`SPOOL_NOTIFY must be "redis" or "nats", got "${choice}"`);
  const nats = await natsForDemo();
  return { nats: { servers: nats.url, kvBucket: 'spool_sample_hints' }, stop: () => nats.stop() };
}
