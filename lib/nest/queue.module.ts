import { Module, type DynamicModule, type Provider } from '@nestjs/common';
import { SpoolConnections } from './connections.js';
import { SPOOL_LOGGER, SpoolCoreModule } from './core.module.js';
import { SpoolBootstrapError } from './errors.js';
import { ASYNC_OPTIONS_TYPE, ConfigurableModuleClass, MODULE_OPTIONS_TOKEN, OPTIONS_TYPE } from './module-definition.js';
import { QueueRegistry, type QueueRegistration } from './queue-registry.js';
import {
  asyncRegistration,
  connectionProviders,
  flowProducer,
  flowProducerProvider,
  queueProviders,
  readAsyncRegistration,
  readFlowProducer,
  readFlowProducerAsync,
  readRegistration,
  visibleConnection,
  type FlowProducerAsyncRegistration,
  type FlowProducerRegistration,
  type QueueAsyncRegistration,
} from './registrations.js';
import { DEFAULT_CONNECTION } from './tokens.js';

export { SPOOL_LOGGER };

/** forRoot's module: the options (exported to the core, which reads them) and `@InjectConnection(name)` for each connection. */
function withCore(definition: DynamicModule, connectionNames: readonly string[]): DynamicModule {
  const connections = connectionProviders([DEFAULT_CONNECTION, ...connectionNames]);
  return {
    ...definition,
    global: true,
    imports: [...(definition.imports ?? []), SpoolCoreModule],
    providers: [...(definition.providers ?? []), ...connections],
    exports: [...(definition.exports ?? []), MODULE_OPTIONS_TOKEN, SpoolCoreModule, ...connections.map((p) => (p as { provide: string }).provide)],
  };
}

/**
 * Spool for Nest.
 *
 * @example
 * \@Module({
 *   imports: [
 *     QueueModule.forRoot({ connection: { url: process.env.REDIS_URL } }),
 *     QueueModule.registerQueue('emails', { name: 'orders', jobs: { place: PlaceOrderDto } }),
 *   ],
 *   providers: [EmailProcessor],
 * })
 * export class AppModule {}
 */
@Module({})
export class QueueModule extends ConfigurableModuleClass {
  /** Connections, workers and the explorer, for the whole app (global). */
  static override forRoot(options: typeof OPTIONS_TYPE): DynamicModule {
    const named = typeof options === 'object' && options?.connections ? Object.keys(options.connections) : [];
    return withCore(super.forRoot(options), named);
  }

  /** Options from a factory (useFactory + inject + imports), a class (useClass) or an existing provider (useExisting). */
  static override forRootAsync(options: typeof ASYNC_OPTIONS_TYPE): DynamicModule {
    return withCore(super.forRootAsync(options), options.connectionNames ?? []);
  }

  /**
   * Provides a Queue per name (inject with `@InjectQueue(name)`); usable in
   * any feature module. A registration with a connection object of its own
   * needs no forRoot.
   */
  static registerQueue(...queues: (string | QueueRegistration)[]): DynamicModule {
    const providers = queues.flatMap((q, i) => {
      const at = `QueueModule.registerQueue() argument ${i + 1}`;
      const { registration, ref } = readRegistration(q, at);
      const connection = visibleConnection(ref);
      return [
        ...queueProviders(registration.name, connection, {
          provide: '',
          useFactory: (registry: QueueRegistry) => registry.register(registration, ref, `${at} ("${registration.name}")`),
          inject: [QueueRegistry],
        }),
        ...(ref.inline ? [] : connectionProviders([connection])),
      ];
    });
    return registered(providers);
  }

  /**
   * registerQueue with options from a factory: `{ name, imports?, inject?,
   * useFactory }` per queue, several at once. `connection` (a forRoot name)
   * goes beside the name, as the queue's token depends on it; the factory
   * may return a connection object.
   *
   * @example
   * QueueModule.registerQueueAsync({ name: 'emails', imports: [ConfigModule], inject: [ConfigService], useFactory: (c: ConfigService) => ({ connection: { url: c.get('REDIS_URL') } }) })
   */
  static registerQueueAsync(...queues: QueueAsyncRegistration[]): DynamicModule {
    const specs = queues.map((q, i) => ({ spec: readAsyncRegistration(q, `QueueModule.registerQueueAsync() argument ${i + 1}`), at: `QueueModule.registerQueueAsync() argument ${i + 1}` }));
    const providers = specs.flatMap(({ spec, at }) =>
      queueProviders(spec.name, spec.connection, {
        provide: '',
        useFactory: async (registry: QueueRegistry, connections: SpoolConnections, ...args: never[]) => {
          let read;
          try {
            read = asyncRegistration(spec, spec.useFactory ? await spec.useFactory(...args) : {}, at);
          } catch (err) {
            return connections.abandon(err);
          }
          return registry.register(read.registration, read.ref.inline ? read.ref : { name: spec.connection }, `${at} ("${spec.name}")`);
        },
        inject: [QueueRegistry, SpoolConnections, ...(spec.inject ?? [])],
      }),
    );
    return registered(providers, specs.flatMap(({ spec }) => spec.imports ?? []));
  }

  /**
   * Provides a FlowProducer per registration (inject with
   * `@InjectFlowProducer(name)`), over every queue registered with the same
   * connection (and prefix). `name` defaults to the connection's name;
   * `connection` may be a connection object (no forRoot needed); `tracing`:
   * its producer spans and stored trace context, over forRoot's.
   */
  static registerFlowProducer(...producers: FlowProducerRegistration[]): DynamicModule {
    const list = producers.length === 0 ? [{}] : producers;
    const providers = list.map((item, i) => {
      const at = `QueueModule.registerFlowProducer() ${producers.length <= 1 ? 'options' : `argument ${i + 1}`}`;
      const { name, ref, options } = readFlowProducer(item, at);
      return flowProducerProvider(name, (r: QueueRegistry, c: SpoolConnections) => flowProducer(r, c, name, ref, options, at), []);
    });
    return registered(providers);
  }

  /** registerFlowProducer with options from a factory: `{ name, imports?, inject?, useFactory }` per producer. */
  static registerFlowProducerAsync(...producers: FlowProducerAsyncRegistration[]): DynamicModule {
    const specs = producers.map((item, i) => ({ spec: readFlowProducerAsync(item, `QueueModule.registerFlowProducerAsync() argument ${i + 1}`), at: `QueueModule.registerFlowProducerAsync() argument ${i + 1}` }));
    const providers = specs.map(({ spec, at }) =>
      flowProducerProvider(
        spec.name,
        async (r: QueueRegistry, c: SpoolConnections, ...args: never[]) => {
          let read;
          try {
            const options: unknown = spec.useFactory ? await spec.useFactory(...args) : {};
            if (typeof options === 'object' && options !== null && 'name' in options) throw new SpoolBootstrapError(`${at} useFactory().name`, 'is not an option here', 'the name is registerFlowProducerAsync({ name })');
            read = readFlowProducer({ ...(options as object), name: spec.name }, `${at} useFactory()`);
          } catch (err) {
            return c.abandon(err);
          }
          return flowProducer(r, c, spec.name, read.ref, read.options, at);
        },
        spec.inject,
      ),
    );
    return registered(providers, specs.flatMap(({ spec }) => spec.imports ?? []));
  }
}

/** A registration's module: its providers (and the core, for apps without forRoot), exported. */
function registered(providers: Provider[], imports: NonNullable<DynamicModule['imports']> = []): DynamicModule {
  return {
    module: QueueModule,
    imports: [SpoolCoreModule, ...imports],
    providers,
    exports: [...new Set(providers.map((p) => (p as { provide: string }).provide))],
  };
}
