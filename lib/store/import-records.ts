import { CHILD_REF_SEPARATOR } from './keys.js';
import type { ChildFailure, ChildRef, StoredFailurePolicy } from './flow-records.js';
import { ReplyShapeError } from './errors.js';
import type { RawReply } from './reply-values.js';
import { StoreError } from './store.js';
import { describe } from '../common/validation.js';

/** Where an imported job enters its queue. */
export type ImportState = 'waiting' | 'delayed' | 'waiting-children' | 'failed' | 'completed';

/**
 * A job brought in from another queue system with its history (lib/migrate
 * builds them from BullMQ's keys), encoded like a NewJob. Store.importJobs()
 * writes it into `state` as it is: attempts already made, created and due
 * when it was, a dead letter with its error.
 */
export interface ImportedJob {
  readonly id: string;
  readonly name: string;
  /** JSON. */
  readonly data: string;
  /** The stored options JSON (lib/engine/options storedOptions). */
  readonly opts: string;
  readonly state: ImportState;
  readonly createdAt: number;
  /** delayed: when it is due; waiting: when it became ready (ms). */
  readonly runAt: number;
  /** Attempts already made. */
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly priority: number;
  readonly lifo: boolean;
  /** Retention specs "count,ageMs" (see NewJob). */
  readonly removeOnComplete: string;
  readonly removeOnFail: string;
  /** The flow parent it reports to, imported before it. */
  readonly parent?: ChildRef & { readonly policy: StoredFailurePolicy };
  /** waiting-children: the children it still waits for (at least one). */
  readonly children?: readonly ChildRef[];
  /** Children that completed (their results, JSON), and failures its children's policies let it carry. */
  readonly results?: readonly { readonly child: ChildRef; readonly result: string }[];
  readonly failures?: readonly { readonly child: ChildRef; readonly failure: ChildFailure }[];
  /** failed and completed: when it finished. */
  readonly finishedAt?: number;
  /** failed: why it died (reason error, unrecoverable, ...), its message, stack and code. */
  readonly error?: { readonly reason: string; readonly message: string; readonly stack: string; readonly code: string };
  /** completed: its result (JSON). */
  readonly result?: string;
}

/** Per job: written now, or already there (its id names a job, or it was imported before). */
export type ImportOutcome = 'imported' | 'exists';

const ref = (c: ChildRef): string => `${c.queue}${CHILD_REF_SEPARATOR}${c.id}`;

/** One job as lua/import.lua reads it (numbers as strings: cjson would turn big ones into floats). */
export function encodeImported(j: ImportedJob): Record<string, unknown> {
  if (j.state === 'waiting-children' && !j.children?.length) {
    // It would wait for ever: a parent whose children are all done waits for nothing (import it as waiting).
    throw new StoreError(`imported job ${j.id} enters waiting-children without children to wait for`, true);
  }
  return {
    id: j.id, name: j.name, data: j.data, opts: j.opts, st: j.state,
    ca: String(j.createdAt), ra: String(j.runAt), at: String(j.attempt), a: String(j.maxAttempts),
    p: String(j.priority), l: j.lifo ? '1' : '0', rc: j.removeOnComplete, rf: j.removeOnFail,
    ...(j.parent && { pq: j.parent.queue, pid: j.parent.id, pol: j.parent.policy }),
    ...(j.children && j.children.length > 0 && { deps: j.children.map(ref) }),
    ...(j.results && j.results.length > 0 && { res: Object.fromEntries(j.results.map((r) => [ref(r.child), r.result])) }),
    ...(j.failures && j.failures.length > 0 && { fails: Object.fromEntries(j.failures.map((f) => [ref(f.child), JSON.stringify(f.failure)])) }),
    ...(j.finishedAt !== undefined && { fa: String(j.finishedAt) }),
    ...(j.error && { why: j.error.reason, e: j.error.message, s: j.error.stack, c: j.error.code }),
    ...(j.result !== undefined && { r: j.result }),
  };
}

/** lua/import.lua's reply: 1 or 0 per job. */
export function decodeImport(reply: RawReply, count: number): ImportOutcome[] {
  if (!Array.isArray(reply) || reply.length !== count) throw new ReplyShapeError('import', `expected ${count} entries, got ${describe(reply)}`);
  return reply.map((entry) => (Number(entry) === 1 ? 'imported' : 'exists'));
}
