import 'reflect-metadata';
import type { ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { OnJob, Processor, QueueModule, SpoolBootstrapError, UnsupportedServerError } from '../../lib/index.js';
import { FakeRedis } from '../helpers/fake-redis.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { rootOptions } from './nest-harness.js';

/** Compiles and inits; resolves the error the bootstrap threw (and closes what did start). */
async function bootstrapError(metadata: ModuleMetadata): Promise<unknown> {
  let app;
  try {
    app = await Test.createTestingModule(metadata).compile();
    await app.init();
  } catch (err) {
    return err;
  } finally {
    await app?.close();
  }
  throw new Error('the app started');
}

@Processor('ghost')
class GhostProcessor {
  @OnJob('boo')
  boo(): void {}
}

@Processor('mail')
class DoubleProcessor {
  @OnJob('send')
  send(): void {}

  @OnJob('send')
  sendAgain(): void {}
}

@Processor('mail')
class TwoFallbacks {
  @OnJob()
  one(): void {}

  @OnJob()
  two(): void {}
}

class NotAProcessor {
  @OnJob('send')
  send(): void {}
}

@Processor('mail')
class MailProcessor {
  @OnJob('send')
  send(): void {}
}

@Processor('mail')
class SecondMailProcessor {
  @OnJob('send')
  again(): void {}
}

@Processor('mail')
class EmptyProcessor {
  helper(): void {}
}

@Processor('mail', { concurrency: 0 })
class BadOptionsProcessor {
  @OnJob('send')
  send(): void {}
}

@Processor('mail', { concurrency: 2 })
class OverCapProcessor {
  @OnJob('send', { concurrency: 5 })
  send(): void {}
}

@Processor('elsewhere', { connection: 'analytics' })
class UnregisteredUnknownConnectionProcessor {
  @OnJob('record')
  record(): void {}
}

@Processor('audit', { connection: 'analytics' })
class UnknownConnectionProcessor {
  @OnJob('record')
  record(): void {}
}

describe('bootstrap errors', () => {
  const root = () => QueueModule.forRoot(rootOptions());
  const mail = () => QueueModule.registerQueue('mail');

  it.each([
    ['a processor for a queue never registered', [root(), mail()], [GhostProcessor], /@Processor\('ghost'\) on GhostProcessor names queue "ghost", which is not registered.*registerQueue\('ghost'\)/],
    ['two handlers for one job name', [root(), mail()], [DoubleProcessor], /DoubleProcessor.sendAgain is a second handler for job name "send" \(the first is DoubleProcessor.send\)/],
    ['two fallback handlers', [root(), mail()], [TwoFallbacks], /TwoFallbacks.two is a second fallback @OnJob\(\)/],
    ['@OnJob on a class without @Processor', [root(), mail()], [NotAProcessor], /^NotAProcessor\.send has @OnJob or @OnWorkerEvent but NotAProcessor has no @Processor decorator/],
    ['two processors of one queue with a job name in common', [root(), mail()], [MailProcessor, SecondMailProcessor],
      /^@Processor\('mail'\) on SecondMailProcessor declares a handler for job name "send" of queue "mail", and so does MailProcessor: one pool runs every processor class of a queue/],
    ['a processor without handlers', [root(), mail()], [EmptyProcessor], /EmptyProcessor has no @OnJob method/],
    ['bad worker options', [root(), mail()], [BadOptionsProcessor], /@Processor\('mail'\) options of BadOptionsProcessor are invalid: Worker options.concurrency/],
    ['a name cap over the pool', [root(), mail()], [OverCapProcessor], /OverCapProcessor are invalid: Worker options.nameConcurrency.send/],
    ['a processor on an unknown connection', [root(), QueueModule.registerQueue({ name: 'audit', connection: 'analytics' })], [UnknownConnectionProcessor], /connection "analytics" is not configured/],
    // Not "register the queue on connection analytics": that fails next, the connection is what is missing.
    ['a processor naming an unknown connection, its queue not registered', [root(), mail()], [UnregisteredUnknownConnectionProcessor],
      /^@Processor\('elsewhere'\) on UnregisteredUnknownConnectionProcessor names connection "analytics", which does not exist: add it to QueueModule\.forRoot\(\{ connections: \{ analytics: \{ url \} \} \}\) or use a configured one \(configured: default\)$/],
  ])('refuses %s', async (_what, imports, providers, message) => {
    const error = await bootstrapError({ imports, providers });
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect((error as Error).message).toMatch(message);
  });

  it.each([
    ['no connection', {}, 'QueueModule options.connection is required'],
    ['a bad URL', { connection: { url: 'http://localhost' } }, 'QueueModule options.connection.url must be a redis:// or rediss:// URL'],
    ['url and client together', { connection: { url: 'redis://x', client: {} } }, 'QueueModule options.connection has both url and client: pass one way to reach Redis'],
    ['cluster without rootNodes', { connection: { cluster: {} } }, 'QueueModule options.connection.cluster.rootNodes must be a non-empty array of node options, got undefined'],
    ['a typo', { connection: { url: 'redis://127.0.0.1:1' }, worker: {} }, 'QueueModule options.worker is not an option'],
    ['a bad prefix', { connection: { url: 'redis://127.0.0.1:1', prefix: 'a{b}' } }, 'QueueModule options.connection.prefix must be 1-64 characters'],
    ['a bad named connection', { connection: { url: 'redis://127.0.0.1:1' }, connections: { analytics: { url: 'nope' } } }, 'QueueModule options.connections.analytics.url'],
    ['a non-boolean requireNoEviction', { connection: { url: 'redis://127.0.0.1:1', requireNoEviction: 'yes' } }, 'QueueModule options.connection.requireNoEviction must be true or false'],
    ['a negative transientRetryMs', { connection: { url: 'redis://127.0.0.1:1', transientRetryMs: -5 } }, 'QueueModule options.connection.transientRetryMs must be a whole number of ms'],
    ['a non-boolean tracing', { connection: { url: 'redis://127.0.0.1:1' }, tracing: 'off' }, 'QueueModule options.tracing must be true or false'],
  ])('refuses module options with %s, naming the field', async (_what, options, message) => {
    const error = await bootstrapError({ imports: [QueueModule.forRoot(options as never)] });
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect((error as Error).message).toContain(message);
  });

  it('passes requireNoEviction to the connection: an evicting server is refused at bootstrap', async () => {
    const server = await FakeRedis.start((section) =>
      section === 'memory' ? '# Memory\r\nmaxmemory:0\r\nmaxmemory_policy:allkeys-lru\r\n' : '# Server\r\nredis_version:7.2.4\r\n',
    );
    try {
      const error = await bootstrapError({ imports: [QueueModule.forRoot({ connection: { url: server.url, requireNoEviction: true } })] });
      expect(error).toBeInstanceOf(UnsupportedServerError);
      expect((error as Error).message).toMatch(/allkeys-lru.*requireNoEviction/);
    } finally {
      await server.close();
    }
  });

  it('refuses bad registerQueue input and bad queue options', async () => {
    expect(() => QueueModule.registerQueue({ name: 'mail', job: {} } as never)).toThrow(/registerQueue\(\) argument 1.job is not an option/);
    expect(() => QueueModule.registerQueue(42 as never)).toThrow(SpoolBootstrapError);
    const error = await bootstrapError({
      imports: [QueueModule.forRoot({ connection: { url: redisUrl(), prefix: uniquePrefix('bad') } }), QueueModule.registerQueue({ name: 'mail', limits: { maxWaiting: -1 } })],
    });
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect((error as Error).message).toMatch(/registerQueue\(\) argument 1 \("mail"\).limits is invalid: limits.maxWaiting/);
  });
});
