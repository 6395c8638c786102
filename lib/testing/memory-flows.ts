import type { AddFlowOutcome, ChildrenRecord, DeliverOutcome, NewFlowNode, RedriveOutcome, RemoveOutcome } from '../store/store.js';
import { announceDelayed, deadLetter, dropJob, place, postParent, releaseDedup, waitScore, wake, type Ctx } from './memory-moves.js';
import { finishedIndex, refOf, type MemJob } from './memory-state.js';
import { newJob, type MemNewJob } from './memory-jobs.js';
import { emit } from './memory-events.js';
import { metricDead } from './memory-metrics.js';

/** A flow notification as includes/flow writes it into the child queue's outbox. */
interface Notice {
  readonly pq: string;
  readonly pid: string;
  readonly pol: string;
  readonly q: string;
  readonly id: string;
  readonly st: string;
  readonly r: string;
  readonly e: string;
  readonly why: string;
}

/**
 * flow-add + flow-commit in one step: memory has no hash tags, so a flow is
 * written whole or refused whole at once (no intents, nothing to sweep).
 */
export function addFlowNodes(ctxOf: (queue: string) => Ctx, nodes: readonly NewFlowNode[], decode: (node: NewFlowNode) => MemNewJob): AddFlowOutcome {
  for (const node of nodes) {
    if (ctxOf(node.queue).q.jobs.has(node.job.id)) return { status: 'duplicate', queue: node.queue, id: node.job.id };
  }
  let createdAt = 0;
  const woken = new Map<Ctx, number>();
  const earliest = new Map<Ctx, { id: string; at: number }>();
  for (const node of nodes) {
    const ctx = ctxOf(node.queue);
    const { q, now } = ctx;
    createdAt = now;
    const job = newJob(decode(node), now);
    if (node.parent) job.parent = { queue: node.parent.queue, id: node.parent.id, policy: node.parent.policy };
    q.jobs.set(job.id, job);
    if (node.children.length > 0) {
      for (const child of node.children) job.deps.add(refOf(child.queue, child.id));
      job.state = 'waiting-children';
      q.waitingChildren.add(job.id, now);
    } else if (node.job.delay > 0) {
      job.state = 'delayed';
      job.runAt = now + node.job.delay;
      q.delayed.add(job.id, job.runAt);
      const first = earliest.get(ctx);
      if (!first || job.runAt < first.at) earliest.set(ctx, { id: job.id, at: job.runAt });
    } else {
      job.runAt = now;
      if (place(ctx, job, waitScore(q, job.priority, job.lifo))) woken.set(ctx, (woken.get(ctx) ?? 0) + 1);
    }
    emit(ctx, 'added', { jobId: job.id, name: job.name, state: job.state === 'delayed' || job.state === 'waiting-children' ? job.state : 'waiting' });
    if (job.state === 'delayed') emit(ctx, 'delayed', { jobId: job.id, delay: node.job.delay, runAt: job.runAt! });
  }
  for (const [ctx, n] of woken) wake(ctx, n);
  for (const [ctx, e] of earliest) announceDelayed(ctx, e.id, e.at - ctx.now);
  return { status: 'added', createdAt };
}

/** deliverToParent: applies the child's notification on the parent's queue, on up the tree, then acknowledges it. */
export function deliver(ctxOf: (queue: string) => Ctx, queue: string, childId: string): DeliverOutcome {
  const child = ctxOf(queue);
  const message = child.q.outbox.get(childId);
  if (message === undefined) return { parentState: null };
  const m = JSON.parse(message) as Notice;
  const parentState = childDone(ctxOf(m.pq), m);
  if (parentState === 'failed') deliver(ctxOf, m.pq, m.pid);
  if (child.q.outbox.get(childId) === message) child.q.outbox.delete(childId);
  return { parentState: parentState === 'removed' ? null : parentState };
}

function startParent(ctx: Ctx, parent: MemJob): void {
  if (parent.state !== 'waiting-children' || parent.hold !== undefined) return;
  ctx.q.waitingChildren.delete(parent.id);
  parent.runAt = ctx.now;
  if (place(ctx, parent, waitScore(ctx.q, parent.priority, parent.lifo))) wake(ctx, 1);
}

function failurePolicy(json: string): string {
  return (JSON.parse(json) as { policy?: string }).policy ?? 'fail';
}

/** child-done.lua: one child's outcome applied to its parent, idempotently. Returns the parent's state. */
function childDone(ctx: Ctx, m: Notice): MemJob['state'] | 'removed' | null {
  const parent = ctx.q.jobs.get(m.pid);
  if (!parent) return null;
  const ref = refOf(m.q, m.id);
  const done = (): void => {
    if (parent.deps.delete(ref) && parent.deps.size === 0) startParent(ctx, parent);
  };
  if (m.st === 'completed') {
    parent.results.set(ref, m.r);
    parent.failures.delete(ref);
    done();
  } else if (m.st === 'redriven') {
    parent.failures.delete(ref);
    if (parent.state === 'failed' && parent.reason === 'child-failed' && ![...parent.failures.values()].some((f) => failurePolicy(f) === 'fail')) {
      ctx.q.failed.delete(parent.id);
      emit(ctx, 'redriven', { jobId: parent.id, state: 'waiting-children' });
      parent.finishedAt = undefined;
      parent.error = undefined;
      parent.reason = undefined;
      parent.state = 'waiting-children';
      ctx.q.waitingChildren.add(parent.id, ctx.now);
      if (parent.deps.size === 0) startParent(ctx, parent);
    }
  } else {
    const failure = JSON.stringify({ state: m.st, reason: m.why, message: m.e, policy: m.pol });
    if (m.pol === 'remove') {
      parent.failures.delete(ref);
      done();
    } else if (m.pol === 'ignore') {
      parent.failures.set(ref, failure);
      done();
    } else if (m.pol === 'continue') {
      parent.failures.set(ref, failure);
      parent.deps.delete(ref);
      startParent(ctx, parent);
    } else {
      parent.failures.set(ref, failure);
      const waitsOnIt = parent.state === 'waiting-children' || (parent.state === 'failed' && parent.reason === 'child-failed');
      if (m.st === 'cancelled' || !waitsOnIt) parent.deps.delete(ref);
      if (parent.state === 'waiting-children') {
        ctx.q.waitingChildren.delete(parent.id);
        const what = m.st === 'cancelled' ? 'was cancelled' : `died (${m.why}): ${m.e}`;
        deadLetter(ctx, parent, 'child-failed', `child ${m.id} of queue ${m.q} ${what}`, '', 'ChildFailedError');
        metricDead(ctx, parent.name);
      }
    }
  }
  return ctx.q.jobs.get(m.pid)?.state ?? 'removed';
}

/** includes/redrive: a dead letter back to waiting (or waiting-children, or delayed), attempts reset on request; its parent hears of it. */
export function redriveJob(ctx: Ctx, id: string, reset = true, delay = 0): RedriveOutcome {
  const job = ctx.q.jobs.get(id);
  if (!job) return { status: 'unknown' };
  if (job.state !== 'failed') return { status: 'not-failed', state: job.state };
  ctx.q.failed.delete(id);
  job.finishedAt = undefined;
  job.error = undefined;
  job.reason = undefined;
  job.finishedToken = undefined;
  if (reset) {
    job.attempt = 0;
    job.stalled = 0;
  }
  job.runAt = ctx.now;
  if (job.deps.size > 0) {
    job.state = 'waiting-children';
    ctx.q.waitingChildren.add(id, ctx.now);
  } else if (delay > 0) {
    job.state = 'delayed';
    job.runAt = ctx.now + delay;
    ctx.q.delayed.add(id, job.runAt);
    announceDelayed(ctx, id, delay);
  } else if (place(ctx, job, waitScore(ctx.q, job.priority, job.lifo))) {
    wake(ctx, 1);
  }
  emit(ctx, 'redriven', { jobId: id, state: job.state });
  postParent(ctx, job, 'redriven');
  return { status: 'redriven', state: job.state };
}

/** remove.lua: deletes a finished job with no pending children. */
export function removeJob(ctx: Ctx, id: string): RemoveOutcome {
  const { q } = ctx;
  const job = q.jobs.get(id);
  if (!job) return { status: 'unknown' };
  const index = finishedIndex(q, job.state);
  if (!index) return { status: 'not-finished', state: job.state };
  if (job.deps.size > 0) return { status: 'children-pending', pending: job.deps.size };
  index.delete(id);
  releaseDedup(q, job);
  dropJob(q, id);
  emit(ctx, 'removed', { jobId: id, state: job.state });
  return { status: 'removed' };
}

export function childrenOf(job: MemJob | undefined): ChildrenRecord {
  const split = (ref: string) => {
    const at = ref.indexOf('\n');
    return { queue: ref.slice(0, at), id: ref.slice(at + 1) };
  };
  if (!job) return { pending: [], results: [], failures: [] };
  return {
    pending: [...job.deps].map(split),
    results: [...job.results].map(([ref, result]) => ({ child: split(ref), result })),
    failures: [...job.failures].map(([ref, json]) => {
      const f = JSON.parse(json) as { state: string; reason: string; message: string; policy: string };
      return {
        child: split(ref),
        failure: {
          state: f.state === 'cancelled' ? 'cancelled' : 'failed',
          reason: String(f.reason ?? ''),
          message: String(f.message ?? ''),
          policy: f.policy === 'continue' || f.policy === 'ignore' || f.policy === 'remove' ? f.policy : 'fail',
        },
      };
    }),
  };
}

/**
 * A flow child's outcome reaches its parent inside the transition that
 * finished it: memory has no hash slots to keep apart, so there is no window
 * in which a crash could leave it undelivered (deliverToParent and the sweeps
 * find nothing left to do).
 */
export function flushOutboxes(ctxs: Map<string, Ctx>, ctxOf: (queue: string) => Ctx): void {
  for (let rounds = 0, delivered = true; delivered && rounds < 1000; rounds++) {
    delivered = false;
    for (const ctx of [...ctxs.values()]) {
      for (const childId of [...ctx.q.outbox.keys()]) {
        deliver(ctxOf, ctx.q.name, childId);
        delivered = true;
      }
    }
  }
}
