import { FlowProducer } from '../engine/flow-producer.js';
import type { FlowJob, JobNode } from '../engine/flow-types.js';
import type { QueueRegistry } from './queue-registry.js';
import type { SpoolConnections } from './connections.js';

/**
 * The FlowProducer of registerFlowProducer(): it knows every queue the app
 * registered on its connection, so flow nodes get those queues' defaults and
 * DTO validation, and a node naming another queue is refused. Built on first
 * use, when every module has registered its queues.
 */
export class ModuleFlowProducer extends FlowProducer {
  private inner: FlowProducer | undefined;

  constructor(
    private readonly connections: SpoolConnections,
    private readonly registry: QueueRegistry,
    private readonly connection: string,
  ) {
    super({ store: connections.get(connection) });
  }

  override add(flow: FlowJob): Promise<JobNode> {
    this.inner ??= new FlowProducer({ store: this.connections.get(this.connection), queues: this.registry.queues(this.connection) });
    return this.inner.add(flow);
  }

  override async close(): Promise<void> {
    await super.close();
    await this.inner?.close();
  }
}
