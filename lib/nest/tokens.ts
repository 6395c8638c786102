/** DI tokens and metadata keys of the Nest module. */

/** The connection used when a queue or processor names none. */
export const DEFAULT_CONNECTION = 'default';

/** Token of the Queue registered as `name` (on `connection`); use it in tests and custom providers. */
export function getQueueToken(name: string, connection: string = DEFAULT_CONNECTION): string {
  return connection === DEFAULT_CONNECTION ? `SpoolQueue:${name}` : `SpoolQueue:${connection}:${name}`;
}

/** Token of the Store of a named connection. */
export function getConnectionToken(connection: string = DEFAULT_CONNECTION): string {
  return `SpoolConnection:${connection}`;
}

/** Token of the FlowProducer registered with registerFlowProducer() for a connection. */
export function getFlowProducerToken(connection: string = DEFAULT_CONNECTION): string {
  return `SpoolFlowProducer:${connection}`;
}

export const PROCESSOR_METADATA = 'spool:processor';
export const ON_JOB_METADATA = 'spool:on-job';
export const ON_WORKER_EVENT_METADATA = 'spool:on-worker-event';
export const ON_QUEUE_EVENT_METADATA = 'spool:on-queue-event';

/** Token of the QueueEvents of a registered queue (inject with @InjectQueueEvents(name)). */
export function getQueueEventsToken(name: string, connection: string = DEFAULT_CONNECTION): string {
  return connection === DEFAULT_CONNECTION ? `SpoolQueueEvents:${name}` : `SpoolQueueEvents:${connection}:${name}`;
}
