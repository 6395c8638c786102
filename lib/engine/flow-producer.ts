import type { ChildRef, NewFlowNode, Store } from '../store/store.js';
import type { EnqueueOptions, TransactionClient } from '../store/transaction.js';
import { transactionOf } from './transactions.js';
import { ClosedError, InvalidArgumentError } from './errors.js';
import { DuplicateJobIdError, UnknownQueueError } from './flow-errors.js';
import { CHILD_FAILURE_POLICIES, type FlowJob, type JobNode } from './flow-types.js';
import { NUMBERED_ID } from './ids.js';
import { Job } from './job.js';
import { validateQueueName } from './names.js';
import { assertKnownKeys, assertPlainObject, checkOptions, describe } from '../common/validation.js';
import { Queue, recordOf } from './queue.js';
import { captureTraceContext, inProducerSpan } from './tracing.js';

/** Options of `new FlowProducer(...)`: the store, and the queues its flows may use. */
export interface FlowProducerOptions {
  readonly store: Store;
  /**
   * The queues flows may use: each node is checked with its queue's
   * defaultJobOptions, validator and payload limit, and a node naming any
   * other queue is refused (UnknownQueueError). More can be added later with
   * registerQueue(). Omitted: every queue allowed, plain defaults for those not registered.
   */
  readonly queues?: readonly Queue[];
  /** With OpenTelemetry: a flow is added in one producer span whose context every node stores. Default true; false: no span, no context. */
  readonly tracing?: boolean;
}

const OPTIONS: readonly (keyof FlowProducerOptions)[] = ['store', 'queues', 'tracing'];
const NODE_KEYS = ['name', 'queueName', 'data', 'opts', 'failurePolicy', 'children'];

/** A node checked and encoded, with where it sits in the tree (for errors and the reply). */
interface Prepared {
  readonly node: NewFlowNode;
  readonly data: unknown;
  readonly children: Prepared[];
}

/**
 * Adds trees of jobs whose parents run after their children, across queues.
 * A parent waits in 'waiting-children' until every child is done, then runs
 * and reads `await job.getChildrenResults()`. The tree is added whole or not
 * at all: a bad node (unknown queue, invalid data or options, an id used
 * twice or already taken) throws and writes nothing.
 *
 * @example
 * const flows = new FlowProducer({ store });
 * const { job } = await flows.add({
 *   name: 'render', queueName: 'videos', data: { id: 7 },
 *   children: [
 *     { name: 'transcode', queueName: 'cpu', data: { id: 7, res: 720 } },
 *     { name: 'thumbnail', queueName: 'images', data: { id: 7 }, failurePolicy: 'ignoreDependencyOnFailure' },
 *   ],
 * });
 * const result = await job.waitUntilFinished({ timeout: 60_000 });
 */
export class FlowProducer {
  private readonly store: Store;
  /** Queues given in options.queues or registerQueue(): their defaults and validators apply. */
  private readonly queues = new Map<string, Queue>();
  /** Plain queues an unrestricted producer made for names nobody registered; a registered queue takes over the name. */
  private readonly implicit = new Map<string, Queue>();
  private readonly restricted: boolean;
  private closed = false;
  private readonly tracing: boolean;

  constructor(options: FlowProducerOptions) {
    checkOptions<FlowProducerOptions>(options, OPTIONS, 'FlowProducer options');
    if (!options.store) throw new InvalidArgumentError('FlowProducer options.store', 'is required', 'pass a connected RedisStore');
    if (options.tracing !== undefined && typeof options.tracing !== 'boolean') {
      throw new InvalidArgumentError('FlowProducer options.tracing', `must be a boolean, got ${describe(options.tracing)}`);
    }
    this.tracing = options.tracing ?? true;
    this.store = options.store;
    this.restricted = options.queues !== undefined;
    if (options.queues !== undefined) {
      if (!Array.isArray(options.queues)) throw new InvalidArgumentError('FlowProducer options.queues', 'must be an array of Queue');
      options.queues.forEach((q, i) => this.register(q, `FlowProducer options.queues[${i}]`));
    }
  }

  /**
   * Makes a queue known after construction, e.g. one a module registers
   * later: nodes of that queue get its defaultJobOptions, validator and
   * payload limit, and a producer built with `queues` accepts nodes naming it.
   * The queue must use this producer's store. Registering the same Queue
   * again changes nothing; another Queue of a registered name is refused.
   */
  registerQueue(queue: Queue): this {
    this.register(queue, 'FlowProducer.registerQueue() queue');
    return this;
  }

  private register(queue: Queue, field: string): void {
    if (!(queue instanceof Queue)) throw new InvalidArgumentError(field, `must be a Queue, got ${describe(queue)}`);
    if (!queue.usesStore(this.store)) {
      throw new InvalidArgumentError(field, `("${queue.name}") uses another store than this FlowProducer`, 'create the queue and the producer with the same store');
    }
    const known = this.queues.get(queue.name);
    if (known === queue) return;
    if (known) {
      throw new InvalidArgumentError(field, `is a second Queue named "${queue.name}"`, 'register each queue name once, with the Queue instance your producers use');
    }
    this.queues.set(queue.name, queue);
    this.implicit.delete(queue.name);
  }

  /** Adds one tree. Resolves with every job's snapshot, shaped like the tree. */
  async add(flow: FlowJob, options?: EnqueueOptions): Promise<JobNode> {
    if (this.closed) throw new ClosedError('add() on a closed FlowProducer');
    const name = typeof flow?.queueName === 'string' ? flow.queueName : 'flow';
    const tx = transactionOf(options, this.store, name, 'addFlowInTransaction');
    // With OpenTelemetry: one producer span; every node of the tree stores its context (lib/engine/tracing.ts).
    return inProducerSpan(name, 1, () => this.addTree(flow, false, tx), this.tracing);
  }

  private async addTree(flow: FlowJob, retried = false, tx?: TransactionClient): Promise<JobNode> {
    const ids = new Set<string>();
    const root = await this.prepare(flow, 'flow', undefined, ids, captureTraceContext(this.tracing));
    const nodes: NewFlowNode[] = [];
    const collect = (p: Prepared): void => {
      nodes.push(p.node);
      p.children.forEach(collect);
    };
    collect(root);
    const outcome = tx === undefined ? await this.store.addFlow(nodes) : await this.store.addFlowInTransaction!(nodes, tx);
    if (outcome.status === 'duplicate') {
      // A number the queue gave (custom ids may not be one) that a job holds: the counter went back
      // (a failover lost draws). The producer drops the numbers it holds; the next draw skips held ones.
      if (!retried && NUMBERED_ID.test(outcome.id)) {
        this.queueFor(outcome.queue, 'flow').discardIds();
        return this.addTree(flow, true, tx);
      }
      throw new DuplicateJobIdError(fieldOf(root, outcome.queue, outcome.id) ?? 'flow', outcome.queue, outcome.id, 'stored');
    }
    return this.snapshot(root, outcome.createdAt);
  }

  /** Refuses further adds; the store stays open (it belongs to whoever created it). */
  async close(): Promise<void> {
    this.closed = true;
  }

  /** `traceContext`: the flow's producer span's, the same for every node. */
  private async prepare(flow: FlowJob, at: string, parent: ChildRef | undefined, ids: Set<string>, traceContext: string | undefined): Promise<Prepared> {
    assertPlainObject(flow, at);
    assertKnownKeys(flow, NODE_KEYS, at);
    const queueName = validateQueueName(flow.queueName, `${at}.queueName`);
    const queue = this.queueFor(queueName, `${at}.queueName`);
    if (flow.opts?.dedup !== undefined) {
      throw new InvalidArgumentError(`${at}.opts.dedup`, 'is not supported in a flow', 'give the node a jobId instead');
    }
    const { job } = await queue.prepare({ name: flow.name, data: flow.data ?? null, opts: flow.opts }, `${at}.`, traceContext);
    const key = `${queueName}\n${job.id}`;
    if (ids.has(key)) throw new DuplicateJobIdError(`${at}.opts.jobId`, queueName, job.id, 'in-flow');
    ids.add(key);

    let policy = CHILD_FAILURE_POLICIES.failParentOnFailure;
    if (flow.failurePolicy !== undefined) {
      if (!parent) throw new InvalidArgumentError(`${at}.failurePolicy`, 'is set on the root, which has no parent', 'set it on a child');
      const stored = (CHILD_FAILURE_POLICIES as Record<string, (typeof CHILD_FAILURE_POLICIES)[keyof typeof CHILD_FAILURE_POLICIES]>)[flow.failurePolicy];
      if (stored === undefined) {
        throw new InvalidArgumentError(`${at}.failurePolicy`, `must be one of ${Object.keys(CHILD_FAILURE_POLICIES).join(', ')}, got ${describe(flow.failurePolicy)}`);
      }
      policy = stored;
    }
    const children = flow.children ?? [];
    if (!Array.isArray(children)) throw new InvalidArgumentError(`${at}.children`, `must be an array of flow jobs, got ${describe(children)}`);
    const self: ChildRef = { queue: queueName, id: job.id };
    // A parent starts when its children are done: its own delay would only surprise.
    const nodeJob = children.length > 0 ? { ...job, delay: 0 } : job;
    const prepared: Prepared[] = [];
    for (const [i, child] of children.entries()) prepared.push(await this.prepare(child, `${at}.children[${i}]`, self, ids, traceContext));
    const node: NewFlowNode = {
      queue: queueName,
      job: nodeJob,
      ...(parent && { parent: { ...parent, policy } }),
      children: prepared.map((c) => ({ queue: c.node.queue, id: c.node.job.id })),
    };
    return { node, data: flow.data ?? null, children: prepared };
  }

  private queueFor(name: string, field: string): Queue {
    const registered = this.queues.get(name);
    if (registered && registered.shards > 1) {
      // A flow links jobs through one parent hash per queue; a sharded queue has several.
      throw new InvalidArgumentError(field, `names queue "${name}", which is sharded over ${registered.shards} queues`, 'flows cannot add jobs to a sharded queue: use a queue without shards for flow jobs');
    }
    if (registered) return registered;
    if (this.restricted) throw new UnknownQueueError(field, name, [...this.queues.keys()]);
    let queue = this.implicit.get(name);
    if (!queue) {
      queue = new Queue(name, { store: this.store });
      this.implicit.set(name, queue);
    }
    return queue;
  }

  private snapshot(p: Prepared, createdAt: number): JobNode {
    const { job, queue } = p.node;
    const state = p.children.length > 0 ? 'waiting-children' : job.delay > 0 ? 'delayed' : 'waiting';
    const parent = p.node.parent && { queue: p.node.parent.queue, id: p.node.parent.id };
    const record = { ...recordOf(job, createdAt, createdAt + job.delay), state, ...(parent && { parent }) } as const;
    return {
      job: new Job(queue, record, { value: p.data }, this.store),
      children: p.children.map((c) => this.snapshot(c, createdAt)),
    };
  }
}

/** Where in the tree a (queue, id) sits, for the error message. */
function fieldOf(p: Prepared, queue: string, id: string, at = 'flow'): string | undefined {
  if (p.node.queue === queue && p.node.job.id === id) return `${at}.opts.jobId`;
  for (const [i, c] of p.children.entries()) {
    const found = fieldOf(c, queue, id, `${at}.children[${i}]`);
    if (found) return found;
  }
  return undefined;
}
