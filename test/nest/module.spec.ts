import 'reflect-metadata';
import { Controller, Inject, Injectable, Module } from '@nestjs/common';
import {
  InjectConnection,
  InjectQueue,
  OnJob,
  Processor,
  Queue,
  QueueModule,
  RedisStore,
  getConnectionToken,
  getQueueToken,
  type ActiveJob,
  type QueueModuleOptions,
  type SpoolOptionsFactory,
} from '../../lib/index.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { nestHarness, rootOptions } from './nest-harness.js';

@Injectable()
class Greeter {
  greet(name: string): string {
    return `hello ${name}`;
  }
}

@Processor('greetings')
class GreetingProcessor {
  constructor(private readonly greeter: Greeter) {}

  @OnJob('greet')
  greet(job: ActiveJob<{ name: string }>): string {
    return this.greeter.greet(job.data.name);
  }
}

@Injectable()
class GreetingService {
  constructor(@InjectQueue('greetings') readonly queue: Queue<{ name: string }, string>) {}
}

@Controller('greetings')
class GreetingController {
  constructor(@InjectQueue('greetings') readonly queue: Queue<{ name: string }, string>) {}
}

/** A stand-in for @nestjs/config: the factory reads the Redis URL from it. */
@Injectable()
class ConfigService {
  readonly values = new Map<string, string>([
    ['REDIS_URL', redisUrl()],
    ['QUEUE_PREFIX', uniquePrefix('cfg')],
  ]);
  get(key: string): string {
    const value = this.values.get(key);
    if (value === undefined) throw new Error(`no config ${key}`);
    return value;
  }
}

@Module({ providers: [ConfigService], exports: [ConfigService] })
class ConfigModule {}

/** Feature module that registers its own queue, as a forFeature would. */
@Module({ imports: [QueueModule.registerQueue('greetings')], providers: [Greeter, GreetingProcessor, GreetingService], controllers: [GreetingController] })
class GreetingModule {}

@Injectable()
class OptionsFactory implements SpoolOptionsFactory {
  constructor(@Inject(ConfigService) private readonly config: ConfigService) {}
  createSpoolOptions(): QueueModuleOptions {
    return { connection: { url: this.config.get('REDIS_URL'), prefix: this.config.get('QUEUE_PREFIX') } };
  }
}

async function greetsThrough(queue: Queue<{ name: string }, string>, name: string): Promise<void> {
  const job = await queue.add('greet', { name });
  await expect(queue.waitFor(job.id, { timeout: 5000 })).resolves.toBe(`hello ${name}`);
}

describe('QueueModule', () => {
  const nest = nestHarness();

  it('forRoot provides queues to services and controllers and runs processors with DI inside', async () => {
    const app = await nest.app({ imports: [QueueModule.forRoot(rootOptions()), GreetingModule] });
    const { queue } = app.get(GreetingService);
    expect(queue).toBeInstanceOf(Queue);
    expect(app.get(GreetingController).queue).toBe(queue);
    expect(app.get(getQueueToken('greetings'), { strict: false })).toBe(queue);
    nest.verifyAfter(queue);
    await greetsThrough(queue, 'ada');
  });

  it('forRootAsync reads options from a config service through useFactory + inject + imports', async () => {
    const app = await nest.app({
      imports: [
        QueueModule.forRootAsync({
          imports: [ConfigModule],
          inject: [ConfigService],
          useFactory: (config: ConfigService) => ({ connection: { url: config.get('REDIS_URL'), prefix: config.get('QUEUE_PREFIX') } }),
        }),
        GreetingModule,
      ],
    });
    const { queue } = app.get(GreetingService);
    const store = app.get<RedisStore>(getConnectionToken());
    expect(store.prefix).toMatch(/^cfg-/);
    nest.verifyAfter(queue);
    await greetsThrough(queue, 'bob');
  });

  it('forRootAsync takes useClass and useExisting', async () => {
    const viaClass = await nest.app({
      imports: [QueueModule.forRootAsync({ imports: [ConfigModule], useClass: OptionsFactory }), GreetingModule],
    });
    nest.verifyAfter(viaClass.get(GreetingService).queue);
    await greetsThrough(viaClass.get(GreetingService).queue, 'cy');

    @Module({ imports: [ConfigModule], providers: [OptionsFactory], exports: [OptionsFactory] })
    class OptionsModule {}
    const viaExisting = await nest.app({
      imports: [QueueModule.forRootAsync({ imports: [OptionsModule], useExisting: OptionsFactory }), GreetingModule],
    });
    nest.verifyAfter(viaExisting.get(GreetingService).queue);
    await greetsThrough(viaExisting.get(GreetingService).queue, 'dee');
  });

  describe('with two Redis servers', () => {
    let second: RedisServer;
    beforeAll(async () => {
      second = await RedisServer.start();
    });
    afterAll(async () => {
      await second.stop();
    });

    @Injectable()
    class TwoServers {
      constructor(
        @InjectQueue('greetings') readonly main: Queue<{ name: string }, string>,
        @InjectQueue('audit', 'analytics') readonly audit: Queue<{ event: string }>,
        @InjectConnection() readonly mainStore: RedisStore,
        @InjectConnection('analytics') readonly analyticsStore: RedisStore,
      ) {}
    }

    @Processor('audit', { connection: 'analytics' })
    class AuditProcessor {
      @OnJob('record')
      record(job: ActiveJob<{ event: string }>): string {
        return `recorded ${job.data.event}`;
      }
    }

    it('keeps queues, processors and injected stores on their own connection', async () => {
      const prefix = uniquePrefix('two');
      const app = await nest.app({
        imports: [
          QueueModule.forRoot({ connection: { url: redisUrl(), prefix }, connections: { analytics: { url: second.url, prefix } } }),
          QueueModule.registerQueue({ name: 'audit', connection: 'analytics' }, 'greetings'),
          GreetingModule,
        ],
        providers: [TwoServers, AuditProcessor],
      });
      const two = app.get(TwoServers);
      expect(two.mainStore).not.toBe(two.analyticsStore);
      nest.verifyAfter(two.main, two.audit);
      await greetsThrough(two.main, 'eve');
      const audit = await two.audit.add('record', { event: 'login' });
      await expect(two.audit.waitFor(audit.id, { timeout: 5000 })).resolves.toBe('recorded login');
      // The audit job lives on the second server only.
      const mainView = new Queue('audit', { store: two.mainStore });
      expect(await mainView.getJob(audit.id)).toBeNull();
      expect((await two.audit.getJob(audit.id))?.state).toBe('completed');
    });
  
    it('forRootAsync exposes named connections listed in connectionNames', async () => {
      const prefix = uniquePrefix('two');
      const app = await nest.app({
        imports: [
          QueueModule.forRootAsync({
            imports: [ConfigModule],
            inject: [ConfigService],
            useFactory: (config: ConfigService) => ({ connection: { url: config.get('REDIS_URL'), prefix }, connections: { analytics: { url: second.url, prefix } } }),
            connectionNames: ['analytics'],
          }),
          QueueModule.registerQueue({ name: 'audit', connection: 'analytics' }, 'greetings'),
        ],
        providers: [TwoServers, AuditProcessor],
      });
      const two = app.get(TwoServers);
      nest.verifyAfter(two.audit);
      expect(two.analyticsStore).toBe(app.get(getConnectionToken('analytics')));
      const audit = await two.audit.add('record', { event: 'logout' });
      await expect(two.audit.waitFor(audit.id, { timeout: 5000 })).resolves.toBe('recorded logout');
    });
  });
});
