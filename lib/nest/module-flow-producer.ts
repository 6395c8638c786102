import { FlowProducer } from '../engine/flow-producer.js';
import type { FlowJob, JobNode } from '../engine/flow-types.js';
import type { QueueRegistry } from './queue-registry.js';
import type { SpoolConnections } from './connections.js';

/**
 * The FlowProducer of registerFlowProducer(): it knows every queue the app
 * registered on its connection, so flow nodes get those queues' defaults and
 * DTO validation, and a node naming another queue is refused. Modules
 * register their queues after this provider may have been built (and lazy
 * modules long after), so each add() first registers the ones it has not seen.
 */
export class ModuleFlowProducer extends FlowProducer {
  constructor(
    connections: SpoolConnections,
    private readonly registry: QueueRegistry,
    private readonly connection: string,
    tracing?: boolean,
  ) {
    super({ store: connections.get(connection), queues: [], tracing: tracing ?? connections.options.tracing });
  }

  override add(flow: FlowJob): Promise<JobNode> {
    for (const queue of this.registry.queues(this.connection)) this.registerQueue(queue);
    return super.add(flow);
  }
}
