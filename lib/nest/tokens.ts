import { describe } from '../common/validation.js';
import { SpoolBootstrapError } from './errors.js';

/** DI tokens and metadata keys of the Nest module. */

/** The connection used when a queue or processor names none. */
export const DEFAULT_CONNECTION = 'default';

/**
 * A connection as tokens and messages name it: its name in
 * QueueModule.forRoot({ connections }). Anything else is refused here, so
 * no token reads `SpoolQueue:[object Object]:emails`; a connection object
 * belongs to a registration (registerQueue({ name, connection: { url } })),
 * whose queue is then found by its name alone.
 */
export function connectionName(value: unknown, field: string): string {
  if (value === undefined) return DEFAULT_CONNECTION;
  if (typeof value === 'string' && value.length > 0) return value;
  const inline = typeof value === 'object' && value !== null && !Array.isArray(value);
  throw new SpoolBootstrapError(
    field,
    `must be the name of a connection of QueueModule.forRoot({ connections }), got ${describe(value)}`,
    inline
      ? "a connection object goes in the registration, registerQueue({ name, connection: { url } }), and the queue is then injected and processed by its name alone; or declare it once, QueueModule.forRoot({ connections: { analytics: { url } } }), and pass its name ('analytics')"
      : undefined,
  );
}

/** Token of the Queue registered as `name` (on `connection`); use it in tests and custom providers. */
export function getQueueToken(name: string, connection: string = DEFAULT_CONNECTION): string {
  const named = connectionName(connection, 'getQueueToken() connection');
  return named === DEFAULT_CONNECTION ? `SpoolQueue:${name}` : `SpoolQueue:${named}:${name}`;
}

/** Token of the Store of a named connection. */
export function getConnectionToken(connection: string = DEFAULT_CONNECTION): string {
  return `SpoolConnection:${connectionName(connection, 'getConnectionToken() connection')}`;
}

/**
 * Token of the FlowProducer registered with registerFlowProducer({ name }):
 * its name, which is its connection's name when it has none (so
 * `getFlowProducerToken('analytics')` still finds `registerFlowProducer({ connection: 'analytics' })`).
 */
export function getFlowProducerToken(name: string = DEFAULT_CONNECTION): string {
  if (typeof name !== 'string' || name.length === 0) throw new SpoolBootstrapError('getFlowProducerToken() name', `must be the name of a flow producer, got ${describe(name)}`);
  return `SpoolFlowProducer:${name}`;
}

export const PROCESSOR_METADATA = 'spool:processor';
export const ON_JOB_METADATA = 'spool:on-job';
export const ON_WORKER_EVENT_METADATA = 'spool:on-worker-event';
export const ON_QUEUE_EVENT_METADATA = 'spool:on-queue-event';

/** Token of the QueueEvents of a registered queue (inject with `@InjectQueueEvents(name)`). */
export function getQueueEventsToken(name: string, connection: string = DEFAULT_CONNECTION): string {
  const named = connectionName(connection, 'getQueueEventsToken() connection');
  return named === DEFAULT_CONNECTION ? `SpoolQueueEvents:${name}` : `SpoolQueueEvents:${named}:${name}`;
}

/** The one key for a queue on a connection (queue names cannot hold a newline). */
export function queueKey(name: string, connection: string): string {
  return `${connection}\n${name}`;
}
