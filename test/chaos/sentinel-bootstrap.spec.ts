import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleLogger } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createClient } from 'redis';
import { getQueueToken, OnJob, Processor, QueueModule, RedisUnavailableError, type ActiveJob, type Queue } from '../../lib/index.js';
import { freePort, RedisServer, waitForPing } from '../helpers/redis-server.mjs';
import { waitFor } from '../helpers/wait-for.js';

const MASTER = 'boot-master';
/** The bound the fail-fast bootstrap gets (commandTimeoutMs). */
const TIMEOUT_MS = 1000;

class CapturingLogger extends ConsoleLogger {
  readonly warnings: string[] = [];
  override warn(message: unknown): void {
    this.warnings.push(String(message));
  }
  override log(): void {}
}

@Processor('boot-work')
class BootProcessor {
  @OnJob('greet')
  greet(job: ActiveJob<{ name: string }>): string {
    return `hello ${job.data.name}`;
  }
}

/**
 * A Sentinel whose master cannot be reached when the Nest app boots: first
 * not started (the port refuses), then started and SIGSTOPped (the socket is
 * accepted, nothing answers). A producer-only connection fails the bootstrap
 * within commandTimeoutMs with RedisUnavailableError; a connection with
 * processors waits (as with a plain URL, and past node-redis's own give-up
 * after 16 rediscoveries) and starts once the master answers.
 * One sentinel (quorum 1, no replica: nothing to fail over to) and one
 * master port for the file; plain TCP, no TLS (sentinel.spec.ts has that).
 */
describe('Sentinel: the master unreachable at bootstrap', () => {
  let dir: string;
  let sentinel: ChildProcess;
  let sentinelPort: number;
  let masterPort: number;
  let master: RedisServer | undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'spool-sentinel-boot-'));
    [sentinelPort, masterPort] = [await freePort(), await freePort()];
    const conf = join(dir, 'sentinel.conf');
    writeFileSync(conf, [`port ${sentinelPort}`, 'bind 127.0.0.1', `dir ${dir}`, `sentinel monitor ${MASTER} 127.0.0.1 ${masterPort} 1`, `sentinel down-after-milliseconds ${MASTER} 500`, ''].join('\n'));
    sentinel = spawn('redis-server', [conf, '--sentinel', '--loglevel', 'warning'], { stdio: 'ignore' });
    await waitForPing(sentinelPort);
  });
  afterAll(async () => {
    await master?.dispose();
    if (sentinel.exitCode === null && sentinel.signalCode === null) {
      const exited = new Promise<void>((resolve) => sentinel.once('exit', () => resolve()));
      sentinel.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const connection = (prefix: string, extra: object = {}): object => ({
    sentinel: { name: MASTER, sentinels: [{ host: '127.0.0.1', port: sentinelPort }] },
    prefix,
    commandTimeoutMs: TIMEOUT_MS,
    ...extra,
  });

  /** Boots a producer-only app; resolves the error it failed with, and how long that took. */
  async function producerBoot(prefix: string): Promise<{ error: unknown; ms: number }> {
    const started = Date.now();
    const error = await (async () => {
      const app = await Test.createTestingModule({ imports: [QueueModule.forRoot({ connection: connection(prefix) }), QueueModule.registerQueue('boot')] }).compile();
      await app.init();
      await app.close();
    })().catch((err: unknown) => err);
    return { error, ms: Date.now() - started };
  }

  /** What the sentinel says of the master now: its flags (`master`, `s_down`, ...). */
  async function masterFlags(): Promise<string> {
    const client = createClient({ socket: { host: '127.0.0.1', port: sentinelPort, reconnectStrategy: false }, RESP: 2 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      const reply = (await client.sendCommand(['SENTINEL', 'MASTER', MASTER])) as string[];
      return reply[reply.indexOf('flags') + 1] ?? '';
    } finally {
      client.destroy();
    }
  }

  it('a producer-only app fails with RedisUnavailableError within commandTimeoutMs while the master is not started', async () => {
    const { error, ms } = await producerBoot('boot-missing');
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toMatch(/^RedisStore connect\(\): Redis is unreachable: no connection within 1000 ms \(commandTimeoutMs\)/);
    // The bound plus the bootstrap's own work; without it node-redis rediscovers the master 16 times, a second apart.
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS);
    expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
  });

  it('an app with processors waits for a master not started yet, past node-redis giving up (16 rediscoveries), and starts once it is', async () => {
    const logger = new CapturingLogger();
    let app: Awaited<ReturnType<ReturnType<typeof Test.createTestingModule>['compile']>> | undefined;
    let failed: unknown;
    let booted = false;
    const booting = (async () => {
      app = await Test.createTestingModule({ imports: [QueueModule.forRoot({ connection: connection('boot-late') }), QueueModule.registerQueue('boot-work')], providers: [BootProcessor] })
        .setLogger(logger)
        .compile();
      await app.init();
      booted = true;
    })().catch((err: unknown) => (failed = err));
    // node-redis's Sentinel connect() gave up (about 17 s) and the store tried again with a new client.
    await waitFor(() => logger.warnings.some((w) => /no valid master node.*; trying again$/.test(w)), { timeout: 25_000, interval: 100, message: 'a second connect after node-redis gave up' });
    try {
      expect(failed).toBeUndefined();
      expect(booted).toBe(false);
      master = await RedisServer.start({ port: masterPort });
      await booting;
      expect(failed).toBeUndefined();
      const job = await app!.get<Queue>(getQueueToken('boot-work')).add('greet', { name: 'grace' });
      expect(await job.waitUntilFinished({ timeout: 10_000 })).toBe('hello grace');
    } finally {
      // A failed check above leaves the bootstrap waiting: give it its master, then close the app.
      master ??= await RedisServer.start({ port: masterPort });
      await booting;
      await app?.close();
    }
  }, 40_000);

  it('a producer-only app fails the same way while the master is SIGSTOPped (accepts, answers nothing)', async () => {
    master ??= await RedisServer.start({ port: masterPort });
    await waitFor(async () => !(await masterFlags()).includes('s_down'), { timeout: 10_000, interval: 50, message: 'the sentinel to see the master up' });
    master.pause();
    const { error, ms } = await producerBoot('boot-stopped');
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toContain('no connection within 1000 ms (commandTimeoutMs)');
    expect(ms).toBeLessThan(TIMEOUT_MS + 2000);
  });

  it('an app with processors waits for the stopped master and runs its jobs once it answers', async () => {
    expect(master?.paused).toBe(true);
    let booted: { app: Awaited<ReturnType<ReturnType<typeof Test.createTestingModule>['compile']>> } | undefined;
    let failed: unknown;
    const bootStarted = Date.now();
    const booting = (async () => {
      const app = await Test.createTestingModule({ imports: [QueueModule.forRoot({ connection: connection('boot-wait') }), QueueModule.registerQueue('boot-work')], providers: [BootProcessor] }).compile();
      await app.init();
      booted = { app };
    })().catch((err: unknown) => (failed = err));
    // Past twice the fail-fast bound, with the sentinel calling the master down: the bootstrap still waits.
    await waitFor(async () => Date.now() - bootStarted > 2 * TIMEOUT_MS && (await masterFlags()).includes('s_down'), {
      timeout: 10_000,
      interval: 50,
      message: 'the bound to pass with the master down',
    });
    const resumedAt = Date.now();
    try {
      expect(failed).toBeUndefined();
      expect(booted).toBeUndefined();
      master!.resume();
      await booting;
      expect(failed).toBeUndefined();
      const job = await booted!.app.get<Queue>(getQueueToken('boot-work')).add('greet', { name: 'ada' });
      expect(await job.waitUntilFinished({ timeout: 10_000 })).toBe('hello ada');
      expect(Date.now() - resumedAt).toBeLessThan(10_000);
    } finally {
      master!.resume();
      await booting;
      await booted?.app.close();
    }
  }, 30_000);
});
