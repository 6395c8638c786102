import 'reflect-metadata';
import { ConsoleLogger } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { getQueueToken, OnJob, Processor, QueueModule, RedisUnavailableError, type ActiveJob, type Queue } from '../../lib/index.js';
import { freePort, RedisServer } from '../helpers/redis-server.mjs';
import { waitFor } from '../helpers/wait-for.js';

class CapturingLogger extends ConsoleLogger {
  readonly lines: string[] = [];
  override log(message: unknown): void {
    this.lines.push(`log: ${String(message)}`);
  }
  override warn(message: unknown): void {
    this.lines.push(`warn: ${String(message)}`);
  }
  override error(message: unknown): void {
    this.lines.push(`error: ${String(message)}`);
  }
}

@Processor('late-work')
class LateProcessor {
  @OnJob('greet')
  greet(job: ActiveJob<{ name: string }>): string {
    return `hello ${job.data.name}`;
  }
}

// A Nest worker that boots before Redis: waitForRedis: true waits (capped
// backoff, a log line every few seconds) instead of exiting.
describe('Nest: Redis down at bootstrap', () => {
  let server: RedisServer | undefined;
  afterEach(async () => {
    await server?.dispose();
    server = undefined;
  });

  it('waitForRedis: true waits for Redis, says so while waiting, then starts', async () => {
    const port = await freePort();
    const logger = new CapturingLogger();
    let app: TestingModule | undefined;
    // Compiling already opens the connections (an async provider): it is what waits.
    const booting = (async () => {
      app = await Test.createTestingModule({
        imports: [QueueModule.forRoot({ connection: { url: `redis://127.0.0.1:${port}`, prefix: 'boot', waitForRedis: true } }), QueueModule.registerQueue('late')],
      })
        .setLogger(logger)
        .compile();
      await app.init();
    })();
    let booted = false;
    void booting.then(() => (booted = true), () => undefined);
    // The bootstrap is still waiting after the first "still waiting" line (5 s).
    await waitFor(() => logger.lines.some((l) => l.includes('still waiting for Redis')), { timeout: 10_000, interval: 50, message: 'a "still waiting" line' });
    expect(booted).toBe(false);
    server = await RedisServer.start({ port });
    await booting;
    try {
      expect(logger.lines.filter((l) => l.startsWith('warn: Redis is unreachable'))).toHaveLength(1);
      expect(logger.lines).toContainEqual(expect.stringMatching(/^log: connection "default": Redis answered after \d+\.\d s$/));
      const queue = app!.get<Queue>(getQueueToken('late'));
      expect((await queue.add('x', {})).id).toBeTruthy();
    } finally {
      await app!.close();
    }
  }, 30_000);

  it('without it (the default) the bootstrap fails at once with RedisUnavailableError', async () => {
    const port = await freePort();
    const started = Date.now();
    let error: unknown;
    try {
      const app = await Test.createTestingModule({ imports: [QueueModule.forRoot({ connection: { url: `redis://127.0.0.1:${port}` } })] }).compile();
      await app.init();
      await app.close();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('a connection with processors waits by default (with its warnings), then runs them', async () => {
    const port = await freePort();
    const logger = new CapturingLogger();
    let app: TestingModule | undefined;
    const booting = (async () => {
      app = await Test.createTestingModule({
        imports: [QueueModule.forRoot({ connection: { url: `redis://127.0.0.1:${port}`, prefix: 'boot-worker' } }), QueueModule.registerQueue('late-work')],
        providers: [LateProcessor],
      })
        .setLogger(logger)
        .compile();
      await app.init();
    })();
    let booted = false;
    void booting.then(() => (booted = true), () => undefined);
    await waitFor(() => logger.lines.some((l) => l.includes('still waiting for Redis')), { timeout: 10_000, interval: 50, message: 'a "still waiting" line' });
    expect(booted).toBe(false);
    expect(logger.lines).toContainEqual(expect.stringMatching(/^warn: connection "default": still waiting for Redis after \d+ s \(it runs processors; waitForRedis: false fails the bootstrap instead\)$/));
    server = await RedisServer.start({ port });
    await booting;
    try {
      const job = await app!.get<Queue>(getQueueToken('late-work')).add('greet', { name: 'ada' });
      expect(await job.waitUntilFinished({ timeout: 10_000 })).toBe('hello ada');
    } finally {
      await app!.close();
    }
  }, 30_000);

  it('without forRoot, a queue with its own connection and a processor waits for its Redis too', async () => {
    const port = await freePort();
    const logger = new CapturingLogger();
    let app: TestingModule | undefined;
    const booting = (async () => {
      app = await Test.createTestingModule({
        imports: [QueueModule.registerQueue({ name: 'late-work', connection: { url: `redis://127.0.0.1:${port}`, prefix: 'boot-inline' } })],
        providers: [LateProcessor],
      })
        .setLogger(logger)
        .compile();
      await app.init();
    })();
    // The first failed attempt is logged at once; a connection that did not wait would have failed the bootstrap by then.
    await waitFor(() => logger.lines.some((l) => l.startsWith('warn: Redis is unreachable')), { timeout: 10_000, interval: 20, message: 'the first unreachable line' });
    server = await RedisServer.start({ port });
    await booting;
    try {
      const job = await app!.get<Queue>(getQueueToken('late-work')).add('greet', { name: 'ada' });
      expect(await job.waitUntilFinished({ timeout: 10_000 })).toBe('hello ada');
      expect(logger.lines).toContainEqual(expect.stringMatching(/^warn: Redis is unreachable \(connect ECONNREFUSED .*\); waiting for it to come up$/));
    } finally {
      await app!.close();
    }
  }, 30_000);

  it('waitForRedis: false fails a bootstrap with processors at once; a producer-only connection of the same app fails fast by default', async () => {
    const port = await freePort();
    const refusedAt = Date.now();
    const refused = await (async () => {
      const connection = { url: `redis://127.0.0.1:${port}`, waitForRedis: false };
      const app = await Test.createTestingModule({ imports: [QueueModule.forRoot({ connection }), QueueModule.registerQueue('late-work')], providers: [LateProcessor] }).compile();
      await app.init();
      await app.close();
    })().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(RedisUnavailableError);
    expect(Date.now() - refusedAt).toBeLessThan(5000);
    // Processors on the default connection only: the named producer-only connection does not wait for its (absent) Redis.
    server = await RedisServer.start();
    const started = Date.now();
    const error = await (async () => {
      const app = await Test.createTestingModule({
        imports: [QueueModule.forRoot({ connection: { url: server!.url, prefix: 'boot-mixed' }, connections: { audit: { url: `redis://127.0.0.1:${port}` } } }), QueueModule.registerQueue('late-work')],
        providers: [LateProcessor],
      }).compile();
      await app.init();
      await app.close();
    })().catch((err: unknown) => err);
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
