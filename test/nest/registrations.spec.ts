import 'reflect-metadata';
import { Inject, Injectable, Module } from '@nestjs/common';
import { LazyModuleLoader } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import {
  InjectFlowProducer,
  OnJob,
  Processor,
  Queue,
  QueueModule,
  SpoolBootstrapError,
  getFlowProducerToken,
  getQueueToken,
  type ActiveJob,
  type ModuleFlowProducer,
} from '../../lib/index.js';
import { QueueTesting } from '../../lib/testing/index.js';
import { redisUrl, testStore, uniquePrefix } from '../helpers/store.js';
import { nestHarness, rootOptions } from './nest-harness.js';

/** A config module as apps have one (ConfigModule's shape): the factory's injected dependency. */
const REDIS_SETTINGS = 'REDIS_SETTINGS';
@Module({ providers: [{ provide: REDIS_SETTINGS, useFactory: () => ({ url: redisUrl(), prefix: uniquePrefix('cfg') }) }], exports: [REDIS_SETTINGS] })
class SettingsModule {}

async function bootError(imports: unknown[], providers: unknown[] = []): Promise<unknown> {
  try {
    const app = await Test.createTestingModule({ imports: imports as never[], providers: providers as never[] }).compile();
    await app.init();
    await app.close();
  } catch (err) {
    return err;
  }
  return undefined;
}

@Processor('own')
class OwnProcessor {
  @OnJob('double')
  double(job: ActiveJob<number>): number {
    return job.data * 2;
  }
}

describe('registrations with their own connection, prefix and async options', () => {
  const h = nestHarness();

  it("registerQueue({ prefix }): the queue's keys live under its own prefix, and its processor works there", async () => {
    const base = uniquePrefix('base');
    const own = uniquePrefix('own');
    const app = await h.app({ imports: [QueueModule.forRoot({ connection: { url: redisUrl(), prefix: base } }), QueueModule.registerQueue({ name: 'own', prefix: own }, 'plain')], providers: [OwnProcessor] });
    const queue = app.get<Queue<number>>(getQueueToken('own'));
    h.verifyAfter(queue as unknown as Queue, app.get<Queue>(getQueueToken('plain')));
    const job = await queue.add('double', 21);
    expect(await job.waitUntilFinished({ timeout: 5000 })).toBe(42);
    // Read back through plain stores: present under the queue's prefix, absent under the connection's.
    const [under, beside] = await Promise.all([testStore(undefined, own), testStore(undefined, base)]);
    try {
      expect((await new Queue('own', { store: under }).getJob(job.id))?.result).toBe(42);
      expect(await new Queue('own', { store: beside }).getJob(job.id)).toBeNull();
    } finally {
      await Promise.all([under.disconnect(), beside.disconnect()]);
    }
  });

  it('registerQueueAsync: imports and inject reach the factory; the factory may return a connection object', async () => {
    const app = await h.app({
      imports: [
        QueueModule.registerQueueAsync(
          { name: 'own', imports: [SettingsModule], inject: [REDIS_SETTINGS], useFactory: (settings: { url: string; prefix: string }) => ({ connection: settings, defaultJobOptions: { attempts: 3 } }) },
          { name: 'second', imports: [SettingsModule], inject: [REDIS_SETTINGS], useFactory: async (settings: { url: string; prefix: string }) => ({ connection: settings }) },
        ),
      ],
      providers: [OwnProcessor],
    });
    const queue = app.get<Queue<number>>(getQueueToken('own'));
    const job = await queue.add('double', 4);
    expect(job.opts.attempts).toBe(3);
    expect(await job.waitUntilFinished({ timeout: 5000 })).toBe(8);
    expect(app.get<Queue>(getQueueToken('second')).name).toBe('second');
  });

  it('refuses bad async options: unknown keys with did-you-mean, the name or another named connection from the factory', async () => {
    expect(() => QueueModule.registerQueueAsync({ name: 'q', useFactroy: () => ({}) } as never)).toThrow('QueueModule.registerQueueAsync() argument 1.useFactroy is not an option: did you mean "useFactory"?');
    expect(() => QueueModule.registerQueueAsync({ name: 'q', useClass: class {} } as never)).toThrow('useClass is not an option: registerQueueAsync takes useFactory');
    expect(() => QueueModule.registerFlowProducer({ nmae: 'flows' } as never)).toThrow('QueueModule.registerFlowProducer() options.nmae is not an option: did you mean "name"?');
    expect(() => QueueModule.registerFlowProducerAsync({ name: 'f', inejct: [] } as never)).toThrow('QueueModule.registerFlowProducerAsync() argument 1.inejct is not an option: did you mean "inject"?');
    expect(() => QueueModule.registerQueue({ name: 'q', prefix: 'has space' })).toThrow('QueueModule.registerQueue() argument 1.prefix must be 1-64 characters without braces or spaces, got "has space"');
    const cases: [unknown, RegExp][] = [
      [{ name: 'q', useFactory: () => ({ defaultJobOption: {} }) }, /registerQueueAsync\(\) argument 1 useFactory\(\)\.defaultJobOption is not an option: did you mean "defaultJobOptions"\?/],
      [{ name: 'q', useFactory: () => ({ processors: [] }) }, /useFactory\(\)\.processors is not an option: a sandboxed processor names its module itself/],
      [{ name: 'q', useFactory: () => ({ name: 'other' }) }, /useFactory\(\)\.name is not an option here: the name is registerQueueAsync\(\{ name \}\)/],
      [{ name: 'q', useFactory: () => ({ connection: 'analytics' }) }, /useFactory\(\)\.connection is "analytics", but the queue's token was made for connection "default": give the named connection up front/],
      [{ name: 'q', useFactory: () => 'nope' }, /useFactory\(\) must return the queue's options \(an object\), got "nope"/],
    ];
    for (const [registration, message] of cases) {
      const error = await bootError([QueueModule.forRoot(rootOptions()), QueueModule.registerQueueAsync(registration as never)]);
      expect(error).toBeInstanceOf(SpoolBootstrapError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it('without forRoot, a registration needs a connection of its own: the error says so', async () => {
    const error = await bootError([QueueModule.registerQueue('lonely')]);
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect((error as Error).message).toMatch(/needs a connection, and the app has no QueueModule\.forRoot\(\): import QueueModule\.forRoot\(\{ connection: \{ url \} \}\), or give the registration its own/);
  });

  it('refuses one queue registered with two connections or prefixes, and one flow producer name on two connections', async () => {
    const root = () => QueueModule.forRoot(rootOptions());
    const twice = await bootError([root(), QueueModule.registerQueue({ name: 'q' }), QueueModule.registerQueue({ name: 'q', prefix: 'elsewhere' })]);
    expect((twice as Error).message).toMatch(/makes queue "q" use connection "default#elsewhere", but QueueModule\.registerQueue\(\) argument 1 \("q"\) registers it on "default": register a queue with the same connection and prefix everywhere/);
    const inline = await bootError([root(), QueueModule.registerQueue({ name: 'q' }), QueueModule.registerQueue({ name: 'q', connection: { url: redisUrl() } })]);
    expect((inline as Error).message).toMatch(/makes queue "q" use connection "inline:[0-9a-f]{12}", but .* registers it on "default"/);
    const producers = await bootError([root(), QueueModule.registerFlowProducer({ name: 'orders' }), QueueModule.registerFlowProducer({ name: 'orders', prefix: 'other' })]);
    expect((producers as Error).message).toMatch(/registers flow producer "orders" on connection "default#other", but .* registers it on "default": give each flow producer its own name/);
  });

  it("a flow producer without a name is named after its connection, as before names existed; one name in two modules is one producer", async () => {
    @Injectable()
    class Both {
      constructor(
        @InjectFlowProducer() readonly plain: ModuleFlowProducer,
        @InjectFlowProducer('analytics') readonly analytics: ModuleFlowProducer,
        @Inject(getFlowProducerToken('reports')) readonly reports: ModuleFlowProducer,
      ) {}
    }
    @Module({ imports: [QueueModule.registerFlowProducer({ name: 'reports', connection: 'analytics' })] })
    class ReportsModule {}
    const options = rootOptions();
    const app = await h.app({
      imports: [
        QueueModule.forRoot({ ...options, connections: { analytics: { url: redisUrl(), prefix: uniquePrefix('an') } } }),
        QueueModule.registerFlowProducer(),
        QueueModule.registerFlowProducer({ connection: 'analytics' }, { name: 'reports', connection: 'analytics' }),
        ReportsModule,
      ],
      providers: [Both],
    });
    const both = app.get(Both);
    expect([both.plain.opts, both.analytics.opts, both.reports.opts]).toEqual([
      { name: 'default', connection: 'default' },
      { name: 'analytics', connection: 'analytics' },
      { name: 'reports', connection: 'analytics' },
    ]);
    expect(app.select(ReportsModule).get(getFlowProducerToken('reports'))).toBe(both.reports);
  });

  it('a lazily loaded module brings a queue with its own connection after bootstrap: that connection opens then', async () => {
    const app = await h.app({ imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('early')] });
    @Module({ imports: [QueueModule.registerQueue({ name: 'late', connection: { url: redisUrl(), prefix: uniquePrefix('late') } })] })
    class LateModule {}
    const lazy = await app.get(LazyModuleLoader).load(() => LateModule);
    const late = lazy.get<Queue>(getQueueToken('late'), { strict: false });
    const job = await late.add('x', { n: 1 });
    expect((await late.getJob(job.id))?.state).toBe('waiting');
    h.verifyAfter(late);
  });

  it('QueueTesting runs a queue registered with its own connection in memory, found by its name', async () => {
    const testing = new QueueTesting({ mode: 'auto' });
    const app = await testing.apply(Test.createTestingModule({ imports: [QueueModule.registerQueue({ name: 'own', connection: { url: 'redis://nowhere.invalid:1' } })], providers: [OwnProcessor] })).compile();
    await app.init();
    try {
      const job = await app.get<Queue<number>>(getQueueToken('own')).add('double', 5);
      expect(await job.waitUntilFinished({ timeout: 5000 })).toBe(10);
      expect(testing.jobs('own').map((j) => j.result)).toEqual([10]);
    } finally {
      await app.close();
    }
  });
});
