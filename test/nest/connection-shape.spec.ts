import 'reflect-metadata';
import { ConsoleLogger, Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { CommandTimeoutError, getQueueToken, InjectQueue, OnJob, Processor, Queue, QueueModule, RedisStore, SpoolBootstrapError, type ActiveJob } from '../../lib/index.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { redisUrl, silentLogger, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness } from './nest-harness.js';

@Injectable()
class Seen {
  readonly ids: string[] = [];
}

@Processor('shape')
class ShapeProcessor {
  constructor(private readonly seen: Seen) {}

  @OnJob('ping')
  ping(job: ActiveJob): string {
    this.seen.ids.push(job.id);
    return 'pong';
  }
}

@Processor('dying', { logFailures: { dead: 'error' } })
class DyingProcessor {
  @OnJob('boom')
  boom(): never {
    throw new Error('smtp said no');
  }
}

/** Keeps Nest's log lines with their level and context. */
class CapturingLogger extends ConsoleLogger {
  readonly lines: { level: string; message: string; context?: string }[] = [];
  private keep(level: string, message: unknown, rest: unknown[]): void {
    this.lines.push({ level, message: String(message), context: rest.at(-1) as string | undefined });
  }
  override log(message: unknown, ...rest: unknown[]): void {
    this.keep('log', message, rest);
  }
  override warn(message: unknown, ...rest: unknown[]): void {
    this.keep('warn', message, rest);
  }
  override error(message: unknown, ...rest: unknown[]): void {
    this.keep('error', message, rest);
  }
  override debug(message: unknown, ...rest: unknown[]): void {
    this.keep('debug', message, rest);
  }
}

describe('Nest connection and engine store: one shape', () => {
  const nest = nestHarness();

  it('a producer built as new RedisStore({ url, prefix }) feeds the Nest worker of connection: { url, prefix }', async () => {
    const prefix = uniquePrefix('shape');
    const app = await nest.app({
      imports: [QueueModule.forRoot({ connection: { url: redisUrl(), prefix } }), QueueModule.registerQueue('shape')],
      providers: [Seen, ShapeProcessor],
    });
    const producer = new RedisStore({ url: redisUrl(), prefix, logger: silentLogger });
    await producer.connect();
    try {
      const queue = new Queue('shape', { store: producer });
      const job = await queue.add('ping', {});
      await expect(queue.waitFor(job.id, { timeout: 5000 })).resolves.toBe('pong');
      expect(app.get(Seen).ids).toEqual([job.id]);
      expect(await queue.verify()).toEqual([]);
    } finally {
      await producer.disconnect();
    }
  });

  it.each([
    [{ connection: { url: 'redis://127.0.0.1:1', prefx: 'x' } }, 'QueueModule options.connection.prefx is not an option: did you mean "prefix"?'],
    [{ connection: { url: 'redis://127.0.0.1:1' }, connections: { b: { url: 'redis://127.0.0.1:1', requireNoEvictoin: true } } }, 'QueueModule options.connections.b.requireNoEvictoin is not an option: did you mean "requireNoEviction"?'],
    [{ connection: { url: 'redis://127.0.0.1:1' }, worker: {} }, 'QueueModule options.worker is not an option: did you mean "workers"?'],
    [{ connection: { url: 'redis://127.0.0.1:1', commandTimeoutMs: 0 } }, 'QueueModule options.connection.commandTimeoutMs must be a whole number of ms >= 1, got 0'],
  ])('refuses unknown module keys with a did-you-mean: %p', async (options, message) => {
    let error: unknown;
    try {
      const app = await Test.createTestingModule({ imports: [QueueModule.forRoot(options as never)] }).compile();
      await app.init();
      await app.close();
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect((error as Error).message).toBe(message);
    expect(() => QueueModule.registerQueue({ name: 'mail', defaultJobOption: {} } as never)).toThrow(
      'QueueModule.registerQueue() argument 1.defaultJobOption is not an option: did you mean "defaultJobOptions"?',
    );
  });

  it('names connections by name in tokens and messages; a registration takes a connection object, tokens and decorators refuse one', () => {
    const inline = { url: 'redis://127.0.0.1:1' };
    const expected =
      "getQueueToken() connection must be the name of a connection of QueueModule.forRoot({ connections }), got an object with key url: a connection object goes in the registration, registerQueue({ name, connection: { url } }), and the queue is then injected and processed by its name alone; or declare it once, QueueModule.forRoot({ connections: { analytics: { url } } }), and pass its name ('analytics')";
    let error: unknown;
    try {
      getQueueToken('test', inline as never);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect((error as Error).message).toBe(expected);
    for (const attempt of [() => InjectQueue('test', inline as never), () => Processor('test', { connection: inline as never })]) {
      expect(attempt).toThrow(/connection must be the name of a connection of QueueModule\.forRoot\(\{ connections \}\), got an object with key url/);
    }
    // Named connections keep their tokens; an inline connection's queue goes by its name alone; no token is keyed by an object.
    const module = QueueModule.registerQueue('plain', { name: 'test', connection: 'analytics' }, { name: 'own', connection: inline });
    const tokens = (module.providers ?? []).map((p) => String((p as { provide: unknown }).provide));
    expect(tokens).toEqual(expect.arrayContaining(['SpoolQueue:plain', 'SpoolQueue:analytics:test', 'SpoolQueueEvents:analytics:test', 'SpoolConnection:analytics', 'SpoolQueue:own', 'SpoolQueueEvents:own']));
    expect(tokens.filter((t) => t.includes('[object'))).toEqual([]);
    // An inline connection is checked like forRoot's, unknown keys with their hints.
    expect(() => QueueModule.registerQueue({ name: 'x', connection: { url: 'redis://h:1', keyPrefix: 'a' } as never })).toThrow(
      'QueueModule.registerQueue() argument 1.connection.keyPrefix is not an option',
    );
    expect(() => QueueModule.registerQueue({ name: 'x', connection: { url: 'http://h' } })).toThrow('QueueModule.registerQueue() argument 1.connection.url must be a redis:// or rediss:// URL');
  });

  it('gives the store its commandTimeoutMs: an add to a Redis that stopped answering (SIGSTOP) fails after it', async () => {
    const server = await RedisServer.start();
    const app = await nest.app({
      imports: [QueueModule.forRoot({ connection: { url: server.url, prefix: uniquePrefix('bound'), commandTimeoutMs: 300 } }), QueueModule.registerQueue('bound')],
    });
    try {
      const queue = app.get<Queue>(getQueueToken('bound'));
      await queue.add('x', {}, { jobId: 'first' });
      server.pause();
      const started = performance.now();
      const error = await Promise.race([queue.add('x', {}, { jobId: 'second' }).catch((e: unknown) => e), new Promise((r) => setTimeout(() => r('hung'), 4000).unref())]);
      server.resume();
      expect(error).toBeInstanceOf(CommandTimeoutError);
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      server.resume();
      await app.close();
      await server.dispose();
    }
  });

  it("logs a dead letter through Nest's Logger, at the level the processor chose", async () => {
    const logger = new CapturingLogger();
    const app = await Test.createTestingModule({
      imports: [QueueModule.forRoot({ connection: { url: redisUrl(), prefix: uniquePrefix('dlog') } }), QueueModule.registerQueue('dying')],
      providers: [DyingProcessor],
    })
      .setLogger(logger)
      .compile();
    await app.init();
    try {
      const queue = app.get<Queue>(getQueueToken('dying'));
      const job = await queue.add('boom', {}, { attempts: 2 });
      await waitFor(() => logger.lines.some((l) => l.message.includes('dead-lettered')), { message: 'the dead-letter line' });
      const spool = logger.lines.filter((l) => l.context === 'Spool');
      expect(spool.filter((l) => l.message.includes('dead-lettered'))).toEqual([
        { level: 'error', context: 'Spool', message: `job "boom" ${job.id} of queue "dying" dead-lettered after attempt 2 of 2 (reason: error): smtp said no` },
      ]);
      expect(spool.filter((l) => l.message.includes('retrying in'))).toEqual([
        { level: 'debug', context: 'Spool', message: `job "boom" ${job.id} of queue "dying" failed attempt 1 of 2 (reason: error); retrying in 0 ms: smtp said no` },
      ]);
      expect(await queue.verify()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
