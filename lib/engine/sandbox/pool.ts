import { ClosedError, SandboxCrashedError } from '../errors.js';
import type { ActiveJob } from '../active-job.js';
import { errorFromSandbox, wireReason, type CallKind, type FromSandbox, type SandboxJob } from './protocol.js';
import { Sandbox } from './sandbox.js';
import type { ResolvedSandboxOptions } from './options.js';

/** A job a sandbox is running. */
interface Run {
  readonly job: ActiveJob;
  readonly sandbox: Sandbox;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly stopListening: () => void;
  /** job.signal aborted: the reason the run ends with if its sandbox has to be stopped. */
  aborted?: Error;
  graceTimer?: NodeJS.Timeout;
}

/**
 * Runs a handler module in sandboxes (worker threads or child processes),
 * one job per sandbox at a time, each kept for the next job. The parent
 * (the worker) keeps the lease and writes every outcome: here a job is a
 * promise of the handler's result. The handler's writes (progress, log,
 * updateData) come back as messages and go through the job's own lease
 * writer; job.signal's abort goes to the sandbox, and a handler that has not
 * settled `abortGraceMs` later (a CPU loop never sees the message) has its
 * sandbox stopped. A sandbox that dies fails its job's attempt
 * (SandboxCrashedError) and is replaced by a fresh one for the next job.
 */
export class SandboxPool {
  private readonly idle: Sandbox[] = [];
  private readonly runs = new Map<number, Run>();
  private readonly runOf = new Map<Sandbox, number>();
  private nextRun = 0;
  private closed = false;

  constructor(
    private readonly url: URL,
    private readonly o: ResolvedSandboxOptions,
    private readonly queue: string,
    private readonly report: (err: unknown, context: string) => void,
  ) {}

  /** Runs the job in a sandbox; settles with what the handler returned or threw. */
  run(job: ActiveJob): Promise<unknown> {
    if (this.closed) return Promise.reject(new ClosedError(`the sandbox pool of queue "${this.queue}" is closed`));
    const { signal } = job;
    if (signal.aborted) return Promise.reject(signal.reason as Error);
    const sandbox = this.idle.pop() ?? this.start();
    const id = ++this.nextRun;
    return new Promise((resolve, reject) => {
      const onAbort = (): void => this.abort(id, signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      this.runs.set(id, { job, sandbox, resolve, reject, stopListening: () => signal.removeEventListener('abort', onAbort) });
      this.runOf.set(sandbox, id);
      sandbox.send({ t: 'run', run: id, url: this.url.href, job: snapshot(job) });
    });
  }

  /** Stops every sandbox; jobs still running in one fail (their worker has handed them back by now). */
  async close(): Promise<void> {
    this.closed = true;
    const all = [...this.idle, ...[...this.runs.values()].map((r) => r.sandbox)];
    this.idle.length = 0;
    await Promise.all(all.map((s) => s.terminate()));
  }

  private start(): Sandbox {
    const sandbox: Sandbox = new Sandbox(this.o.runner, this.o.maxMemoryMb, {
      message: (m) => this.onMessage(sandbox, m),
      exit: (why) => this.onExit(sandbox, why),
    });
    return sandbox;
  }

  private onMessage(sandbox: Sandbox, m: FromSandbox): void {
    const run = this.runs.get(m.run);
    if (!run || run.sandbox !== sandbox) return;
    if (m.t === 'call') return void this.perform(run, m.call, m.kind, m.value);
    this.settle(m.run, run);
    if (m.t === 'done') run.resolve(m.value);
    else run.reject(errorFromSandbox(m.error, this.queue));
  }

  /** A write the handler asked for, made under the worker's lease; the answer (or the refusal) goes back. */
  private async perform(run: Run, call: number, kind: CallKind, value: unknown): Promise<void> {
    const { job, sandbox } = run;
    try {
      if (kind === 'progress') await job.updateProgress(value);
      else if (kind === 'log') await job.log(String(value));
      else await job.updateData(value);
      sandbox.send({ t: 'reply', call, ok: true, value: kind === 'data' ? job.data : undefined });
    } catch (err) {
      sandbox.send({ t: 'reply', call, ok: false, error: wireReason(err) });
    }
  }

  /** The run is over: its sandbox takes the next job, unless it is being stopped. */
  private settle(id: number, run: Run): void {
    this.runs.delete(id);
    this.runOf.delete(run.sandbox);
    run.stopListening();
    clearTimeout(run.graceTimer);
    // A handler that stopped when aborted leaves a usable sandbox; one stopped for it is gone (onExit).
    if (run.sandbox.alive && !this.closed) this.idle.push(run.sandbox);
  }

  private abort(id: number, reason: Error): void {
    const run = this.runs.get(id);
    if (!run || run.aborted) return;
    run.aborted = reason;
    run.sandbox.send({ t: 'abort', run: id, reason: wireReason(reason) });
    run.graceTimer = setTimeout(() => {
      this.report(new Error(`job ${run.job.id} did not stop within ${this.o.abortGraceMs} ms of its abort (${reason.message})`), `stopping its sandbox (${run.sandbox.label})`);
      void run.sandbox.terminate();
    }, this.o.abortGraceMs);
  }

  private onExit(sandbox: Sandbox, why: string): void {
    const at = this.idle.indexOf(sandbox);
    if (at >= 0) this.idle.splice(at, 1);
    const id = this.runOf.get(sandbox);
    const run = id === undefined ? undefined : this.runs.get(id);
    if (!run) {
      if (!this.closed && why !== 'was stopped') this.report(new SandboxCrashedError(`an idle sandbox (${sandbox.label}) ${why}`), 'a sandbox died between jobs; the next job starts a new one');
      return;
    }
    this.settle(id!, run);
    run.reject(run.aborted ?? new SandboxCrashedError(`the sandbox (${sandbox.label}) running job ${run.job.id} ${why}`));
  }
}

/** The job's fields, as the sandbox's handler sees them. */
function snapshot(job: ActiveJob): SandboxJob {
  return {
    id: job.id,
    name: job.name,
    queueName: job.queueName,
    data: job.data,
    opts: job.opts,
    attempt: job.attempt,
    maxAttempts: job.maxAttempts,
    priority: job.priority,
    stalled: job.stalled,
    createdAt: job.createdAt,
    progress: job.progress,
    deadline: job.deadline,
    group: job.group,
    parent: job.parent,
  };
}
