import { randomBytes } from 'node:crypto';
import { FlowAddAbandonedError } from './errors.js';
import { decideFlow, decodeIntent, encodeIntent, FLOW_SWEEP_GRACE_MS, type FlowDecision } from './flow-intents.js';
import type { SpoolLogger } from '../logger.js';
import type { QueueKeys } from './keys.js';
import type { RedisClientLike } from './redis-client.js';
import { decodeCount, decodeHash } from './replies.js';
import { decodeAddFlow, decodeChildDone } from './flow-replies.js';
import type { RawReply } from './reply-values.js';
import { encodeNode } from './script-args.js';
import type { ScriptName } from './scripts.js';
import type { AddFlowOutcome, DeliverOutcome, NewFlowNode } from './store.js';

/** What the flow writes need from the Redis store: its script calls, its command connection, its key names. */
export interface ScriptCalls {
  run(name: ScriptName, queue: string, args: readonly (string | number)[], jobId?: string, extraKeys?: readonly string[]): Promise<RawReply>;
  call(what: string): RedisClientLike;
  keysOf(queue: string): QueueKeys;
}

/**
 * Flows in Redis: a flow spans queues (hash tags), so its writes and its
 * parent notifications cannot be one script. This is the one owner of both:
 * the two-step add with intents, and the outbox through which a finished
 * child reaches its parent's queue.
 */
export class RedisFlows {
  constructor(
    private readonly s: ScriptCalls,
    private readonly logger: SpoolLogger,
  ) {}

  /**
   * flow-add writes each queue's nodes with every leaf held, all or nothing,
   * and an intent; once every queue took its part the flow's decision is set
   * to release and flow-commit releases the leaves. When a queue refuses (an
   * id exists), the decision is discard and the parts already written go.
   * A producer dying between the steps leaves intents that sweep() settles
   * after the grace (lib/store/flow-intents.ts): never stuck, never half run.
   *
   * `stopAfter` is for crash tests only: it stops where a dying producer would.
   */
  async add(nodes: readonly NewFlowNode[], stopAfter?: 'write' | 'decide'): Promise<AddFlowOutcome> {
    const byQueue = new Map<string, NewFlowNode[]>();
    for (const node of nodes) byQueue.set(node.queue, [...(byQueue.get(node.queue) ?? []), node]);
    const token = randomBytes(8).toString('hex');
    const root = nodes[0]?.queue ?? '';
    const decisionKey = this.s.keysOf(root).flowDecision(token);
    const at = Date.now();
    const written: [string, NewFlowNode[]][] = [];
    const giveUp = async (): Promise<void> => {
      await decideFlow(this.s.call('addFlow'), decisionKey, 'discard');
      await this.commit('discard', token, written);
    };
    let createdAt = 0;
    try {
      for (const [queue, part] of byQueue) {
        const k = this.s.keysOf(queue);
        const keys = part.flatMap((n) => [k.job(n.job.id), k.deps(n.job.id)]);
        const intent = encodeIntent({ at, dq: root, ids: part.map((n) => n.job.id) });
        const reply = decodeAddFlow(await this.s.run('flowAdd', queue, [token, JSON.stringify(part.map(encodeNode)), intent], undefined, keys), queue);
        if (reply.status === 'duplicate') {
          await giveUp();
          // Every written part is gone with its intent: nothing will read the decision.
          await this.s.call('addFlow').sendCommand(['DEL', decisionKey]);
          return reply;
        }
        written.push([queue, part]);
        createdAt = reply.createdAt;
      }
    } catch (err) {
      await giveUp().catch(() => undefined); // else the sweep discards it after the grace
      throw err;
    }
    if (stopAfter === 'write') return { status: 'added', createdAt };
    if ((await decideFlow(this.s.call('addFlow'), decisionKey, 'release')) === 'discard') {
      await this.commit('discard', token, written);
      throw new FlowAddAbandonedError(FLOW_SWEEP_GRACE_MS);
    }
    if (stopAfter === 'decide') return { status: 'added', createdAt };
    await this.commit('release', token, written);
    await this.s.call('addFlow').sendCommand(['DEL', decisionKey]);
    return { status: 'added', createdAt };
  }

  private async commit(mode: FlowDecision, token: string, parts: readonly [string, NewFlowNode[]][]): Promise<void> {
    for (const [queue, part] of parts) await this.commitPart(queue, mode, token, part.map((n) => n.job.id));
  }

  private async commitPart(queue: string, mode: FlowDecision, token: string, ids: readonly string[]): Promise<number> {
    const k = this.s.keysOf(queue);
    const keys = ids.flatMap((id) => [k.job(id), k.deps(id)]);
    return decodeCount('flow-commit', await this.s.run('flowCommit', queue, [mode, token, ...ids], undefined, keys));
  }

  /** Settles this queue's flow adds older than `graceMs` by their decision (discard when none was made). */
  async sweep(queue: string, graceMs: number): Promise<number> {
    const k = this.s.keysOf(queue);
    const client = this.s.call('sweepFlows');
    const intents = decodeHash((await client.sendCommand(['HGETALL', k.flowIntents])) as RawReply);
    let settled = 0;
    for (const [token, raw] of Object.entries(intents)) {
      const intent = decodeIntent(raw);
      if (!intent) {
        await client.sendCommand(['HDEL', k.flowIntents, token]);
        continue;
      }
      if (Date.now() - intent.at < graceMs) continue;
      const decision = await decideFlow(client, this.s.keysOf(intent.dq).flowDecision(token), 'discard');
      await this.commitPart(queue, decision, token, intent.ids);
      settled += 1;
    }
    return settled;
  }

  /** Delivers the notification a finished child left in its queue's outbox, if any. */
  async deliver(queue: string, childId: string): Promise<DeliverOutcome> {
    const message = (await this.s.call('deliverToParent').sendCommand(['HGET', this.s.keysOf(queue).outbox, childId])) as string | null;
    if (message == null) return { parentState: null };
    return this.apply(queue, childId, message);
  }

  /**
   * After a worker finished a flow child: delivers now, and on failure leaves
   * it to the housekeeping sweep (the finish itself is written and stands).
   */
  async tellParent(queue: string, childId: string): Promise<void> {
    try {
      await this.deliver(queue, childId);
    } catch (err) {
      this.logger.error(`telling the flow parent of job ${childId} failed; the outbox sweep will retry`, err);
    }
  }

  /** Delivers up to `limit` notifications left in a queue's outbox. */
  async sweepOutbox(queue: string, limit: number): Promise<number> {
    const [, flat] = (await this.s.call('sweepOutbox').sendCommand(['HSCAN', this.s.keysOf(queue).outbox, '0', 'COUNT', String(limit)])) as [
      string,
      string[],
    ];
    let delivered = 0;
    for (let i = 0; i + 1 < flat.length && delivered < limit; i += 2) {
      await this.apply(queue, flat[i]!, flat[i + 1]!);
      delivered += 1;
    }
    return delivered;
  }

  /** Applies one outbox notification on the parent's queue, passes on a parent it finished, then acknowledges. */
  private async apply(queue: string, childId: string, message: string): Promise<DeliverOutcome> {
    const { pq, pid } = JSON.parse(message) as { pq: string; pid: string };
    const outcome = decodeChildDone(await this.s.run('childDone', pq, [message], pid));
    // The child's failure may have dead-lettered the parent: its own parent hears of it now, not at the next sweep.
    if (outcome.parentState === 'failed') await this.deliver(pq, pid);
    await this.s.run('outboxAck', queue, [childId, message]);
    return outcome;
  }
}
