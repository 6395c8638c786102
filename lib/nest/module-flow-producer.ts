import { FlowProducer } from '../engine/flow-producer.js';
import type { FlowJob, JobNode } from '../engine/flow-types.js';
import type { QueueRegistry } from './queue-registry.js';
import type { SpoolConnections } from './connections.js';

/** What a module flow producer was registered with (BullMQ's `flowProducer.opts`). */
export interface ModuleFlowProducerOptions {
  /** Its name: `@InjectFlowProducer(name)`, `getFlowProducerToken(name)`. */
  readonly name: string;
  /** The connection its store is (a forRoot name, an inline connection's generated name, or either with `#prefix`). */
  readonly connection: string;
  readonly tracing?: boolean;
}

/**
 * The FlowProducer of registerFlowProducer(): it knows every queue the app
 * registered on its connection, so flow nodes get those queues' defaults and
 * DTO validation, and a node naming another queue is refused. Modules
 * register their queues after this provider may have been built (and lazy
 * modules long after), so each add() first registers the ones it has not seen.
 */
export class ModuleFlowProducer extends FlowProducer {
  readonly name: string;

  constructor(
    connections: SpoolConnections,
    private readonly registry: QueueRegistry,
    readonly opts: ModuleFlowProducerOptions,
  ) {
    super({ store: connections.get(opts.connection), queues: [], tracing: opts.tracing ?? connections.options.tracing });
    this.name = opts.name;
  }

  override add(flow: FlowJob): Promise<JobNode> {
    for (const queue of this.registry.queues(this.opts.connection)) this.registerQueue(queue);
    return super.add(flow);
  }
}
