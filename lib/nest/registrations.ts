import type { FactoryProvider, ModuleMetadata, Provider } from '@nestjs/common';
import { REGISTER_QUEUE_HINTS } from '../common/option-hints.js';
import { describe } from '../common/validation.js';
import { PREFIX_PATTERN, PREFIX_RULE } from '../store/keys.js';
import { SpoolConnections } from './connections.js';
import { connectionRef, type ConnectionRef } from './connection-ref.js';
import { SpoolBootstrapError } from './errors.js';
import { knownKeys, type SpoolConnectionOptions } from './module-options.js';
import { ModuleFlowProducer } from './module-flow-producer.js';
import { SpoolQueueEvents } from './queue-events-host.js';
import { QueueRegistry, type QueueRegistration } from './queue-registry.js';
import { connectionName, DEFAULT_CONNECTION, getConnectionToken, getFlowProducerToken, getQueueEventsToken, getQueueToken } from './tokens.js';

/**
 * What registerQueue / registerFlowProducer and their async forms turn into:
 * option checks (unknown keys with did-you-mean) and providers. The
 * connection option goes through connection-ref.ts, the one place that reads it.
 */

/** registerQueueAsync(): the queue's name (and forRoot connection, when named) up front; the rest from a factory. */
export interface QueueAsyncRegistration {
  readonly name: string;
  /** A named connection of forRoot, given here because the queue's token depends on it; the factory may not change it. */
  readonly connection?: string;
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: FactoryProvider['inject'];
  /** The registration's other options (registerQueue's, but name); none: registerQueue(name). */
  readonly useFactory?: (...args: never[]) => Omit<QueueRegistration, 'name'> | Promise<Omit<QueueRegistration, 'name'>>;
}

/** registerFlowProducer(): a FlowProducer named `name` (default: its connection's name), injected with `@InjectFlowProducer(name)`. */
export interface FlowProducerRegistration {
  readonly name?: string;
  /** A named connection of forRoot, or a connection of its own ({ url } ...). Default: the default connection. */
  readonly connection?: string | SpoolConnectionOptions;
  /** Key prefix, over the connection's: the producer sees the queues registered with the same connection and prefix. */
  readonly prefix?: string;
  /** Its producer spans and stored trace context, over forRoot's `tracing`. */
  readonly tracing?: boolean;
}

/** registerFlowProducerAsync(): the name up front, the rest from a factory. */
export interface FlowProducerAsyncRegistration {
  readonly name?: string;
  readonly imports?: ModuleMetadata['imports'];
  readonly inject?: FactoryProvider['inject'];
  readonly useFactory?: (...args: never[]) => Omit<FlowProducerRegistration, 'name'> | Promise<Omit<FlowProducerRegistration, 'name'>>;
}

const REGISTRATION_KEYS: readonly (keyof QueueRegistration)[] = ['name', 'connection', 'prefix', 'defaultJobOptions', 'jobs', 'limits', 'maxPayloadBytes', 'schedulers', 'pruneSchedulers', 'shards', 'tracing'];
const ASYNC_KEYS: readonly (keyof QueueAsyncRegistration)[] = ['name', 'connection', 'imports', 'inject', 'useFactory'];
const FLOW_KEYS: readonly (keyof FlowProducerRegistration)[] = ['name', 'connection', 'prefix', 'tracing'];
const FLOW_ASYNC_KEYS: readonly (keyof FlowProducerAsyncRegistration)[] = ['name', 'imports', 'inject', 'useFactory'];
/** Async forms take a factory, and BullMQ's useClass / useExisting factories have no counterpart yet. */
const ASYNC_HINTS = { useClass: 'registerQueueAsync takes useFactory (with inject and imports)', useExisting: 'registerQueueAsync takes useFactory (with inject and imports)' };

function plain(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A queue registration, checked: the registration and its connection as read. */
export function readRegistration(item: unknown, at: string): { readonly registration: QueueRegistration; readonly ref: ConnectionRef } {
  if (typeof item === 'string') return { registration: { name: item }, ref: { name: DEFAULT_CONNECTION } };
  if (!plain(item) || typeof item.name !== 'string') {
    throw new SpoolBootstrapError(at, `must be a queue name or { name, connection?, prefix?, defaultJobOptions?, jobs?, limits? }, got ${describe(item)}`);
  }
  knownKeys(item, REGISTRATION_KEYS, at, REGISTER_QUEUE_HINTS);
  checkTracing(item.tracing, at);
  checkPrefix(item.prefix, at);
  return { registration: item as unknown as QueueRegistration, ref: connectionRef(item.connection, `${at}.connection`) };
}

export function checkTracing(tracing: unknown, at: string): void {
  if (tracing !== undefined && typeof tracing !== 'boolean') throw new SpoolBootstrapError(`${at}.tracing`, `must be true or false, got ${describe(tracing)}`);
}

function checkPrefix(prefix: unknown, at: string): void {
  if (prefix !== undefined && (typeof prefix !== 'string' || !PREFIX_PATTERN.test(prefix))) throw new SpoolBootstrapError(`${at}.prefix`, `must be ${PREFIX_RULE}, got ${describe(prefix)}`);
}

/** The connection a queue is injected under: an inline connection's queue goes by its name alone. */
export function visibleConnection(ref: ConnectionRef): string {
  return ref.inline ? DEFAULT_CONNECTION : ref.name;
}

/** `@InjectConnection(name)` in the registering module, for forRoot connections (an inline one has no token). */
export function connectionProviders(names: readonly string[]): Provider[] {
  return [...new Set(names)].map((name) => ({
    provide: getConnectionToken(name),
    useFactory: async (connections: SpoolConnections) => {
      try {
        return connections.get(name);
      } catch (err) {
        return connections.abandon(err);
      }
    },
    inject: [SpoolConnections],
  }));
}

/** The Queue's and its QueueEvents' providers; `resolve` gives the registration once its options are known. */
export function queueProviders(name: string, connection: string, resolve: FactoryProvider): Provider[] {
  return [
    { provide: getQueueToken(name, connection), useFactory: resolve.useFactory, inject: resolve.inject ?? [] },
    // QueueEvents per queue, made on first injection (after the queue, so its registration is checked first).
    { provide: getQueueEventsToken(name, connection), useFactory: (host: SpoolQueueEvents) => host.get(name, connection), inject: [SpoolQueueEvents, getQueueToken(name, connection)] },
  ];
}

/** Checks an async registration's static part; the factory's result is checked when it resolves (asyncRegistration). */
export function readAsyncRegistration(item: unknown, at: string): QueueAsyncRegistration & { readonly connection: string } {
  if (!plain(item) || typeof item.name !== 'string') throw new SpoolBootstrapError(at, `must be { name, imports?, inject?, useFactory? }, got ${describe(item)}`);
  knownKeys(item, ASYNC_KEYS, at, ASYNC_HINTS);
  if (item.useFactory !== undefined && typeof item.useFactory !== 'function') throw new SpoolBootstrapError(`${at}.useFactory`, `must be a function, got ${describe(item.useFactory)}`);
  const connection = connectionName(item.connection, `${at}.connection`);
  return { ...(item as unknown as QueueAsyncRegistration), connection };
}

/** The registration an async factory resolved to, checked like registerQueue's argument. */
export function asyncRegistration(spec: QueueAsyncRegistration & { readonly connection: string }, options: unknown, at: string): ReturnType<typeof readRegistration> {
  if (!plain(options)) throw new SpoolBootstrapError(`${at} useFactory()`, `must return the queue's options (an object), got ${describe(options)}`);
  if ('name' in options) throw new SpoolBootstrapError(`${at} useFactory().name`, 'is not an option here', 'the name is registerQueueAsync({ name })');
  const read = readRegistration({ ...options, name: spec.name }, `${at} useFactory()`);
  const returned = options.connection;
  if (typeof returned === 'string' && returned !== spec.connection) {
    throw new SpoolBootstrapError(`${at} useFactory().connection`, `is "${returned}", but the queue's token was made for connection "${spec.connection}"`, `give the named connection up front: registerQueueAsync({ name: '${spec.name}', connection: '${returned}', useFactory })`);
  }
  if (read.ref.inline && spec.connection !== DEFAULT_CONNECTION) {
    throw new SpoolBootstrapError(`${at} useFactory().connection`, `is a connection object, but the registration names connection "${spec.connection}"`, 'use one or the other');
  }
  return read;
}

/** A flow producer registration, checked: its name, connection and options. */
export function readFlowProducer(item: unknown, at: string, keys: readonly string[] = FLOW_KEYS): { readonly name: string; readonly ref: ConnectionRef; readonly options: FlowProducerRegistration } {
  if (!plain(item)) throw new SpoolBootstrapError(at, `must be { name?, connection?, prefix?, tracing? }, got ${describe(item)}`);
  knownKeys(item, keys, at);
  checkTracing(item.tracing, at);
  checkPrefix(item.prefix, at);
  if (item.name !== undefined && (typeof item.name !== 'string' || item.name.length === 0)) throw new SpoolBootstrapError(`${at}.name`, `must be a non-empty string, got ${describe(item.name)}`);
  const ref = connectionRef(item.connection, `${at}.connection`);
  const name = (item.name as string | undefined) ?? visibleConnection(ref);
  return { name, ref, options: item as FlowProducerRegistration };
}

export function readFlowProducerAsync(item: unknown, at: string): FlowProducerAsyncRegistration & { readonly name: string } {
  if (!plain(item)) throw new SpoolBootstrapError(at, `must be { name?, imports?, inject?, useFactory? }, got ${describe(item)}`);
  knownKeys(item, FLOW_ASYNC_KEYS, at, ASYNC_HINTS);
  if (item.useFactory !== undefined && typeof item.useFactory !== 'function') throw new SpoolBootstrapError(`${at}.useFactory`, `must be a function, got ${describe(item.useFactory)}`);
  if (item.name !== undefined && (typeof item.name !== 'string' || item.name.length === 0)) throw new SpoolBootstrapError(`${at}.name`, `must be a non-empty string, got ${describe(item.name)}`);
  return { ...(item as FlowProducerAsyncRegistration), name: (item.name as string | undefined) ?? DEFAULT_CONNECTION };
}

/** The flow producer's provider body: one ModuleFlowProducer per name in the app. */
export async function flowProducer(registry: QueueRegistry, connections: SpoolConnections, name: string, ref: ConnectionRef, options: FlowProducerRegistration, at: string): Promise<ModuleFlowProducer> {
  try {
    const store = connections.attach(ref, options.prefix, `flow-producer\n${name}`, `${at}.connection`);
    await connections.ensureOpen(store);
    return registry.flowProducer(name, store, at, () => new ModuleFlowProducer(connections, registry, { name, connection: store, tracing: options.tracing }));
  } catch (err) {
    return connections.abandon(err);
  }
}

export function flowProducerProvider(name: string, useFactory: FactoryProvider['useFactory'], inject: FactoryProvider['inject']): Provider {
  return { provide: getFlowProducerToken(name), useFactory, inject: [QueueRegistry, SpoolConnections, ...(inject ?? [])] };
}
