import 'reflect-metadata';
import { jest } from '@jest/globals';
import { Injectable } from '@nestjs/common';
import { MetadataScanner } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import {
  OnJob,
  OnQueueEvent,
  OnWorkerEvent,
  Processor,
  QueueModule,
  SpoolWorkers,
  WorkerHost,
  getFlowProducerToken,
  getQueueToken,
  type ActiveJob,
  type ModuleFlowProducer,
  type Queue,
} from '../../lib/index.js';
import { SpoolConnections } from '../../lib/nest/connections.js';
import { usePrivateRedis } from '../helpers/private-redis.js';
import { uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * @nestjs/bullmq's module e2e suite (packages/bullmq/e2e/module.e2e-spec.ts
 * of nestjs/bull), test for test under the same names, translated to Spool:
 * BullMQ's `{ host, port }` is `{ url }` here, and every module is init()ed
 * (Spool opens connections in the lifecycle; BullMQ's suite only compiles).
 * Where Spool has no same-shaped API the test keeps its intent with Spool's
 * (said at each one): `processors: [fn]` in registerQueueAsync is a
 * `@Processor` class, `manualRegistration` + BullRegistrar.register() is
 * `autorun: false` + `worker.run()`, QueueEventsHost is `@OnQueueEvent` on
 * any provider, MetadataScanner#scanFromPrototype is #getAllMethodNames.
 * Beyond the original, each queue and flow producer is used once against
 * the private Redis, so a test proves the connection works, not only the DI.
 */
jest.setTimeout(15_000);

const redis = usePrivateRedis();
/** An inline connection (BullMQ's `connection: { host, port }`), with a prefix of its own per module. */
const connection = (prefix = uniquePrefix('port')) => ({ url: redis.url, prefix });

async function compile(imports: NonNullable<Parameters<typeof Test.createTestingModule>[0]['imports']>, providers: NonNullable<Parameters<typeof Test.createTestingModule>[0]['providers']> = []): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({ imports, providers }).compile();
  await moduleRef.init();
  return moduleRef;
}

/** The queue under `name`, proven to reach Redis (an add and its count). */
async function usable(moduleRef: TestingModule, name: string): Promise<Queue> {
  const queue = moduleRef.get<Queue>(getQueueToken(name));
  expect(queue).toBeDefined();
  expect(queue.name).toEqual(name);
  await queue.add('probe', { ok: true });
  expect((await queue.getCounts()).waiting).toBe(1);
  return queue;
}

/** The flow producer under `name`, proven to reach Redis (a one-node flow). */
async function usableFlow(moduleRef: TestingModule, name: string): Promise<ModuleFlowProducer> {
  const flowProducer = moduleRef.get<ModuleFlowProducer>(getFlowProducerToken(name));
  expect(flowProducer).toBeDefined();
  expect(flowProducer.opts.name).toEqual(name);
  return flowProducer;
}

describe('QueueModule (port of BullModule e2e)', () => {
  describe('registerQueue', () => {
    let moduleRef: TestingModule;

    describe('single configuration', () => {
      beforeAll(async () => {
        moduleRef = await compile([QueueModule.registerQueue({ name: 'test', connection: connection() })]);
      });
      afterAll(async () => {
        await moduleRef.close();
      });
      it('should inject the queue with the given name', async () => {
        await usable(moduleRef, 'test');
      });
    });

    describe('multiple configurations', () => {
      beforeAll(async () => {
        const shared = connection();
        moduleRef = await compile([QueueModule.registerQueue({ name: 'test1', connection: shared }, { name: 'test2', connection: { ...shared } })]);
      });
      afterAll(async () => {
        await moduleRef.close();
      });
      it('should inject the queue with name "test1"', async () => {
        await usable(moduleRef, 'test1');
        // Equal inline connections are one connection (one generated name, one store).
        expect(moduleRef.get(SpoolConnections).names).toHaveLength(1);
      });
      it('should inject the queue with name "test2"', async () => {
        await usable(moduleRef, 'test2');
      });
    });
  });

  describe('registerFlowProducer', () => {
    let moduleRef: TestingModule;

    describe('single configuration', () => {
      beforeAll(async () => {
        moduleRef = await compile([QueueModule.registerQueue({ name: 'flow-test', connection: connection('port-flow') }), QueueModule.registerFlowProducer({ name: 'test', connection: connection('port-flow') })]);
      });
      afterAll(async () => {
        await moduleRef.close();
      });
      it('should inject the flowProducer with the given name', async () => {
        const flowProducer = await usableFlow(moduleRef, 'test');
        // It knows the queue registered on the same inline connection.
        const node = await flowProducer.add({ name: 'parent', queueName: 'flow-test', children: [{ name: 'child', queueName: 'flow-test' }] });
        expect(node.job.state).toBe('waiting-children');
      });
    });

    describe('multiple configurations', () => {
      beforeAll(async () => {
        moduleRef = await compile([QueueModule.registerFlowProducer({ name: 'test1', connection: connection() }, { name: 'test2', connection: connection() })]);
      });
      afterAll(async () => {
        await moduleRef.close();
      });
      it('should inject the flowProducer with name "test1"', async () => {
        await usableFlow(moduleRef, 'test1');
      });
      it('should inject the flowProducer with name "test2"', async () => {
        const two = await usableFlow(moduleRef, 'test2');
        expect(two).not.toBe(moduleRef.get(getFlowProducerToken('test1')));
      });
    });
  });

  describe('forRoot + registerQueue', () => {
    let moduleRef: TestingModule;

    describe('single configuration', () => {
      beforeAll(async () => {
        moduleRef = await compile([QueueModule.forRoot({ connection: connection() }), QueueModule.registerQueue({ name: 'test' })]);
      });
      afterAll(async () => {
        await moduleRef.close();
      });
      it('should inject the queue with the given name', async () => {
        await usable(moduleRef, 'test');
      });
    });

    describe('multiple configurations', () => {
      beforeAll(async () => {
        moduleRef = await compile([QueueModule.forRoot({ connection: connection() }), QueueModule.registerQueue({ name: 'test1' }, { name: 'test2' })]);
      });
      afterAll(async () => {
        await moduleRef.close();
      });
      it('should inject the queue with name "test1"', async () => {
        await usable(moduleRef, 'test1');
      });
      it('should inject the queue with name "test2"', async () => {
        await usable(moduleRef, 'test2');
      });
    });
  });

  describe('forRoot + registerFlowProducer', () => {
    let moduleRef: TestingModule;

    describe('single configuration', () => {
      beforeAll(async () => {
        moduleRef = await compile([QueueModule.forRoot({ connection: connection() }), QueueModule.registerQueue('nodes'), QueueModule.registerFlowProducer({ name: 'test' })]);
      });
      afterAll(async () => {
        await moduleRef.close();
      });
      it('should inject the flowProducer with the given name', async () => {
        const flowProducer = await usableFlow(moduleRef, 'test');
        const node = await flowProducer.add({ name: 'solo', queueName: 'nodes' });
        expect((await moduleRef.get<Queue>(getQueueToken('nodes')).getJob(node.job.id))?.state).toBe('waiting');
      });
    });

    describe('multiple configurations', () => {
      beforeAll(async () => {
        moduleRef = await compile([QueueModule.forRoot({ connection: connection() }), QueueModule.registerFlowProducer({ name: 'test1' }, { name: 'test2' })]);
      });
      afterAll(async () => {
        await moduleRef.close();
      });
      it('should inject the flowProducer with name "test1"', async () => {
        await usableFlow(moduleRef, 'test1');
      });
      it('should inject the flowProducer with name "test2"', async () => {
        await usableFlow(moduleRef, 'test2');
      });
    });
  });

  describe('registerQueueAsync', () => {
    let moduleRef: TestingModule;

    describe('single configuration', () => {
      describe('useFactory', () => {
        beforeAll(async () => {
          moduleRef = await compile([QueueModule.registerQueueAsync({ name: 'test', useFactory: () => ({ connection: connection() }) })]);
        });
        afterAll(async () => {
          await moduleRef.close();
        });
        it('should inject the queue with the given name', async () => {
          await usable(moduleRef, 'test');
        });
      });
    });
    describe('multiple configurations', () => {
      describe('useFactory', () => {
        beforeAll(async () => {
          moduleRef = await compile([
            QueueModule.registerQueueAsync({ name: 'test1', useFactory: () => ({ connection: connection() }) }, { name: 'test2', useFactory: async () => ({ connection: connection() }) }),
          ]);
        });
        afterAll(async () => {
          await moduleRef.close();
        });
        it('should inject the queue with name "test1"', async () => {
          await usable(moduleRef, 'test1');
        });
        it('should inject the queue with name "test2"', async () => {
          await usable(moduleRef, 'test2');
        });
      });
    });
  });

  describe('registerFlowProducerAsync', () => {
    let moduleRef: TestingModule;

    describe('single configuration', () => {
      describe('useFactory', () => {
        beforeAll(async () => {
          moduleRef = await compile([QueueModule.registerFlowProducerAsync({ name: 'test', useFactory: () => ({ connection: connection() }) })]);
        });
        afterAll(async () => {
          await moduleRef.close();
        });
        it('should inject the flowProducer with the given name', async () => {
          await usableFlow(moduleRef, 'test');
        });
      });
    });
    describe('multiple configurations', () => {
      describe('useFactory', () => {
        beforeAll(async () => {
          moduleRef = await compile([
            QueueModule.registerFlowProducerAsync({ name: 'test1', useFactory: () => ({ connection: connection() }) }, { name: 'test2', useFactory: () => ({ connection: connection() }) }),
          ]);
        });
        afterAll(async () => {
          await moduleRef.close();
        });
        it('should inject the flowProducer with name "test1"', async () => {
          await usableFlow(moduleRef, 'test1');
        });
        it('should inject the flowProducer with name "test2"', async () => {
          await usableFlow(moduleRef, 'test2');
        });
      });
    });
  });

  describe('forRootAsync + registerQueueAsync', () => {
    let moduleRef: TestingModule;

    describe('single configuration', () => {
      describe('useFactory', () => {
        let processorWasCalled = false;
        let onProcessorCall: () => void = () => undefined;
        const processorCall = new Promise<void>((resolve) => {
          onProcessorCall = resolve;
        });

        // BullMQ: useFactory returns { processors: [fn] }; Spool: a @Processor class (the factory's `processors` is refused with this hint).
        @Processor('test')
        class TestFunctionProcessor {
          @OnJob()
          run(): void {
            processorWasCalled = true;
            onProcessorCall();
          }
        }

        beforeAll(async () => {
          moduleRef = await compile(
            [QueueModule.forRootAsync({ useFactory: () => ({ connection: connection() }) }), QueueModule.registerQueueAsync({ name: 'test', useFactory: () => ({ defaultJobOptions: { attempts: 2 } }) })],
            [TestFunctionProcessor],
          );
        });
        afterAll(async () => {
          await moduleRef.close();
        });
        it('should inject the queue with the given name', () => {
          const queue = moduleRef.get<Queue>(getQueueToken('test'));
          expect(queue).toBeDefined();
          expect(queue.name).toEqual('test');
        });
        it('should trigger the processor function', async () => {
          const queue = moduleRef.get<Queue>(getQueueToken('test'));
          const job = await queue.add('job_name', { test: true });
          await processorCall;
          expect(processorWasCalled).toBeTruthy();
          // The factory's defaultJobOptions reached the queue.
          expect(job.opts.attempts).toBe(2);
        });
      });
    });

    describe('multiple configurations', () => {
      describe('useFactory', () => {
        beforeAll(async () => {
          moduleRef = await compile([QueueModule.forRootAsync({ useFactory: () => ({ connection: connection() }) }), QueueModule.registerQueueAsync({ name: 'test1' }), QueueModule.registerQueue({ name: 'test2' })]);
        });
        afterAll(async () => {
          await moduleRef.close();
        });
        it('should inject the queue with name "test1"', async () => {
          await usable(moduleRef, 'test1');
        });
        it('should inject the queue with name "test2"', async () => {
          await usable(moduleRef, 'test2');
        });
      });
    });
  });

  describe('forRootAsync + registerQueueAsync', () => {
    let moduleRef: TestingModule;

    describe('single configuration', () => {
      describe('useFactory', () => {
        beforeAll(async () => {
          // BullMQ: useFactory returns { processors: [] } (queue options without a connection); here the same with Spool's options.
          moduleRef = await compile([QueueModule.forRootAsync({ useFactory: () => ({ connection: connection() }) }), QueueModule.registerQueueAsync({ name: 'test', useFactory: () => ({ maxPayloadBytes: 1024 }) })]);
        });
        afterAll(async () => {
          await moduleRef.close();
        });
        it('should inject the queue with the given name', async () => {
          const queue = await usable(moduleRef, 'test');
          await expect(queue.add('big', 'x'.repeat(2048))).rejects.toThrow(/1024/);
        });
      });
    });

    describe('multiple shared configurations', () => {
      describe('useFactory', () => {
        beforeAll(async () => {
          moduleRef = await compile([QueueModule.forRootAsync({ useFactory: () => ({ connection: connection() }) }), QueueModule.registerQueueAsync({ name: 'test1' }), QueueModule.registerQueue({ name: 'test2' })]);
        });
        afterAll(async () => {
          await moduleRef.close();
        });
        it('should inject the queue with name "test1"', async () => {
          await usable(moduleRef, 'test1');
        });
        it('should inject the queue with name "test2"', async () => {
          await usable(moduleRef, 'test2');
        });
      });
    });
  });

  describe('full flow (job handling)', () => {
    const queueName = 'full_flow_queue';

    it('should process jobs with the given processors', async () => {
      const processorCalledSpy = jest.fn();
      const queueCompletedEventSpy = jest.fn();
      const workerCompletedEventSpy = jest.fn();

      // BullMQ: @QueueEventsListener on a QueueEventsHost subclass; Spool: @OnQueueEvent(queue, event) on any provider.
      @Injectable()
      class EventsListener {
        @OnQueueEvent(queueName, 'completed')
        onCompleted(): void {
          queueCompletedEventSpy();
        }
      }

      @Processor(queueName)
      class TestProcessor extends WorkerHost {
        // BullMQ calls WorkerHost.process(); Spool runs @OnJob methods (this one for every name).
        @OnJob()
        async process(): Promise<void> {
          await new Promise((resolve) => setTimeout(resolve, 300));
          processorCalledSpy();
        }

        @OnWorkerEvent('completed')
        onCompleted(): void {
          workerCompletedEventSpy();
        }
      }

      const testingModule = await compile([QueueModule.registerQueue({ name: queueName, connection: connection() })], [EventsListener, TestProcessor]);
      const queue = testingModule.get<Queue>(getQueueToken(queueName));
      const job = await queue.add('job_name', { test: true });
      await job.waitUntilFinished({ timeout: 5000 });
      await waitFor(() => queueCompletedEventSpy.mock.calls.length > 0 && workerCompletedEventSpy.mock.calls.length > 0, { message: 'both completed events' });
      await testingModule.close();

      expect(processorCalledSpy).toHaveBeenCalled();
      expect(queueCompletedEventSpy).toHaveBeenCalled();
      expect(workerCompletedEventSpy).toHaveBeenCalled();
    });
  });

  describe('manual registration', () => {
    const queueName = 'a_queue';

    // BullMQ: manualRegistration, the worker undefined until BullRegistrar.register(); Spool: autorun: false, the worker built but idle until run().
    async function manualStart(root: ReturnType<typeof QueueModule.forRoot>): Promise<void> {
      const processorCalledSpy = jest.fn();

      @Processor(queueName)
      class TestProcessor extends WorkerHost {
        @OnJob()
        process(): void {
          processorCalledSpy();
        }
      }

      const testingModule = await compile([root, QueueModule.registerQueue({ name: queueName })], [TestProcessor]);
      try {
        const queue = testingModule.get<Queue>(getQueueToken(queueName));
        const job = await queue.add('job_name', { test: true });
        const processorWorker = testingModule.get(TestProcessor).worker;
        expect(processorWorker).toBe(testingModule.get(SpoolWorkers).get(TestProcessor));
        expect(processorWorker.isRunning).toBe(false);
        expect((await queue.getJob(job.id))?.state).toBe('waiting');

        await processorWorker.run();
        await job.waitUntilFinished({ timeout: 5000 });
        expect(processorCalledSpy).toHaveBeenCalledTimes(1);
      } finally {
        await testingModule.close();
      }
    }

    it('should manually register workers - forRoot', async () => {
      await manualStart(QueueModule.forRoot({ connection: connection(), workers: { autorun: false } }));
    });

    it('should manually register workers - forRootAsync', async () => {
      await manualStart(QueueModule.forRootAsync({ useFactory: () => ({ connection: connection(), workers: { autorun: false } }) }));
    });
  });

  describe('handles all kind of valid processors providers', () => {
    // BullMQ: three WorkerHost classes each with process(); Spool: three classes of one queue, one pool, a job name each.
    @Processor('test_processor_registering')
    class MyProcessorA extends WorkerHost {
      @OnJob('a') a(): string {
        return 'A';
      }
    }

    @Processor('test_processor_registering')
    class MyProcessorB extends WorkerHost {
      @OnJob('b') b(): string {
        return 'B';
      }
    }

    @Processor('test_processor_registering')
    class MyProcessorC extends WorkerHost {
      constructor(private readonly label: string) {
        super();
      }
      @OnJob('c') c(): string {
        return this.label;
      }
    }

    let testingModule: TestingModule;
    let metadataScanner: MetadataScanner;
    let scanned: { readonly mock: { readonly calls: readonly unknown[][] } };

    beforeAll(async () => {
      testingModule = await Test.createTestingModule({
        imports: [QueueModule.registerQueue({ name: 'test_processor_registering', connection: connection() })],
        providers: [
          { provide: 'A', useClass: MyProcessorA },
          { provide: 'B', useValue: new MyProcessorB() },
          { provide: 'C', useFactory: () => new MyProcessorC('C') },
        ],
      }).compile();
      metadataScanner = testingModule.get(MetadataScanner);
      scanned = jest.spyOn(metadataScanner, 'getAllMethodNames');
      await testingModule.init();
    });
    afterAll(async () => {
      await testingModule.close();
    });

    /** The job of that name ran in the class it belongs to, and that instance reaches the queue's one pool. */
    async function ranBy(name: string, expected: string, token: string): Promise<void> {
      const queue = testingModule.get<Queue>(getQueueToken('test_processor_registering'));
      const job = await queue.add(name, {});
      expect(await job.waitUntilFinished({ timeout: 5000 })).toBe(expected);
      expect(testingModule.get<WorkerHost>(token).worker).toBe(testingModule.get(SpoolWorkers).get('test_processor_registering'));
    }

    it('should use MetadataScanner#scanFromPrototype when exploring', () => {
      // Spool's explorer reads methods through MetadataScanner#getAllMethodNames (scanFromPrototype is deprecated in Nest 10).
      const prototypes = scanned.mock.calls.map((args: unknown[]) => args[0]);
      expect(prototypes).toEqual(expect.arrayContaining([MyProcessorA.prototype, MyProcessorB.prototype, MyProcessorC.prototype]));
    });

    it('should reach the processor supplied with `useClass`', async () => {
      await ranBy('a', 'A', 'A');
      expect(testingModule.get(SpoolWorkers).get(MyProcessorA)).toBe(testingModule.get(SpoolWorkers).get('test_processor_registering'));
    });

    it('should reach the processor supplied with `useValue`', async () => {
      await ranBy('b', 'B', 'B');
      expect(testingModule.get(SpoolWorkers).get(MyProcessorB)).toBeDefined();
    });

    it('should reach the processor supplied with `useFactory`', async () => {
      await ranBy('c', 'C', 'C');
      expect(testingModule.get(SpoolWorkers).get(MyProcessorC)).toBeDefined();
    });
  });
});
