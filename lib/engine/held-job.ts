import { clockOf, type ClockTimer } from '../store/clock.js';
import type { JobRecord, Lease, Store } from '../store/store.js';
import { DeadlineExceededError, JobTimeoutError } from './errors.js';
import { ActiveJob, type LeaseWriter } from './active-job.js';

/** A job a worker holds under a lease: the handler's job, its abort switch and its bookkeeping. */
export class HeldJob<Data, Result> {
  readonly job: ActiveJob<Data, Result>;
  readonly lease: Lease;
  /** Made when job.signal is first read (most handlers never do); `reason` holds an abort that came first. */
  private controller: AbortController | undefined;
  private reason: Error | undefined;
  private timer: ClockTimer | undefined;
  private readonly store: Store | undefined;
  /** The handler was started (a job over its name's cap waits parked first). */
  started = false;
  /** The outcome is being written or the job was handed back: a later settle of the handler changes nothing. */
  finishing = false;
  /** The lease is known to be gone (reaped): nothing will be written for this job. */
  lost = false;
  /** The write of the outcome, once finishing. */
  writing: Promise<void> | undefined;
  /** How long the handler ran, ms (complete passes it to the queue's duration metrics). */
  ranMs: number | undefined;
  /** The producer's trace context stored on the job (lib/engine/tracing.ts). */
  readonly traceContext: string | undefined;
  /** Size of the stored payload (UTF-8 bytes), checked against the worker's maxPayloadBytes. */
  readonly payloadBytes: number;

  constructor(queueName: string, record: JobRecord, writer: (lease: Lease) => LeaseWriter, store?: Store) {
    this.store = store;
    this.lease = { id: record.id, token: record.token ?? '', ...(record.parent && { child: true }) };
    this.payloadBytes = Buffer.byteLength(record.data ?? '', 'utf8');
    this.traceContext = record.traceContext;
    this.job = new ActiveJob<Data, Result>(queueName, record, () => this.signal(), writer(this.lease), store);
  }

  private signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.reason) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  /** Aborts job.signal; the first reason wins. */
  abort(reason: Error): void {
    if (this.reason) return;
    this.reason = reason;
    this.controller?.abort(reason);
  }

  /** Fires `onExpire` at the job's timeout or deadline, whichever comes first, with the matching error. */
  armTimer(onExpire: (error: Error) => void): void {
    const { job } = this;
    const timeout = job.opts.timeout;
    const untilDeadline = job.deadline === undefined ? Infinity : job.deadline - clockOf(this.store).now();
    if (timeout === undefined && untilDeadline === Infinity) return;
    const byDeadline = untilDeadline <= (timeout ?? Infinity);
    const error = byDeadline ? new DeadlineExceededError(`job ${job.id} ran past its deadline`) : new JobTimeoutError(timeout!);
    this.timer = clockOf(this.store).setTimeout(() => onExpire(error), Math.max(0, Math.min(untilDeadline, timeout ?? Infinity)));
  }

  clearTimer(): void {
    clockOf(this.store).clearTimeout(this.timer);
  }
}
