import { DelayedError, NoHandlerError, RateLimitedError, UnrecoverableError } from '../errors.js';
import { toError } from '../to-error.js';

/** The job as a sandboxed handler sees it: the snapshot fields (its methods are messages, see runner-source.ts). */
export interface SandboxJob {
  readonly id: string;
  readonly name: string;
  readonly queueName: string;
  readonly data: unknown;
  readonly opts: unknown;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly priority: number;
  readonly stalled: number;
  readonly createdAt: number;
  readonly progress?: unknown;
  readonly deadline?: number;
  readonly group?: string;
  readonly parent?: { readonly queue: string; readonly id: string };
}

/** An error as it crosses the boundary (structured clone keeps no class). */
export interface WireError {
  readonly name?: string;
  readonly message?: string;
  readonly stack?: string;
  readonly code?: string | number;
  readonly reason?: string;
  readonly retryAfter?: number;
  readonly delay?: number;
  readonly jobName?: string;
  /** Set when the handler threw something that is not an Error: its text. */
  readonly thrown?: string;
}

export type ToSandbox =
  | { readonly t: 'run'; readonly run: number; readonly url: string; readonly job: SandboxJob }
  | { readonly t: 'abort'; readonly run: number; readonly reason: { readonly name: string; readonly message: string } }
  | { readonly t: 'reply'; readonly call: number; readonly ok: true; readonly value: unknown }
  | { readonly t: 'reply'; readonly call: number; readonly ok: false; readonly error: { readonly name: string; readonly message: string } };

export type CallKind = 'progress' | 'log' | 'data';

export type FromSandbox =
  | { readonly t: 'call'; readonly run: number; readonly call: number; readonly kind: CallKind; readonly value: unknown }
  | { readonly t: 'done'; readonly run: number; readonly value: unknown }
  | { readonly t: 'failed'; readonly run: number; readonly error: WireError };

/** A message from a sandbox, or undefined when it is not one (nothing else writes to the channel, but a handler could). */
export function fromSandbox(value: unknown): FromSandbox | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const m = value as { t?: unknown; run?: unknown };
  return (m.t === 'call' || m.t === 'done' || m.t === 'failed') && typeof m.run === 'number' ? (value as FromSandbox) : undefined;
}

/**
 * The parent's Error for what a sandboxed handler threw: the classes the
 * engine acts on (UnrecoverableError, RateLimitedError, DelayedError, the
 * module's missing handler) are rebuilt by name, since the handler's copy of
 * Spool is another module instance; anything else keeps its name, message,
 * stack, code and reason.
 */
export function errorFromSandbox(wire: WireError, queue: string): Error {
  if (wire.thrown !== undefined) return toError(wire.thrown);
  const message = wire.message ?? '';
  let error: Error;
  if (wire.name === 'UnrecoverableError') error = new UnrecoverableError(message);
  else if (wire.name === 'RateLimitedError' && typeof wire.retryAfter === 'number') error = new RateLimitedError(wire.retryAfter, message);
  else if (wire.name === 'DelayedError' && typeof wire.delay === 'number') error = new DelayedError(wire.delay, message);
  else if (wire.name === 'NoHandlerError' && typeof wire.jobName === 'string') error = new NoHandlerError(wire.jobName, queue);
  else {
    error = new Error(message);
    error.name = wire.name ?? 'Error';
    const extra = error as Error & { code?: string | number; reason?: string };
    if (wire.code !== undefined) extra.code = wire.code;
    if (wire.reason !== undefined) extra.reason = wire.reason;
  }
  if (wire.stack) error.stack = wire.stack;
  return error;
}

/** An abort reason or a refused write, for the other side (name and message are all it needs). */
export function wireReason(error: unknown): { readonly name: string; readonly message: string } {
  const e = toError(error);
  return { name: e.name, message: e.message };
}
