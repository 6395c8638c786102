import { spawn, type ChildProcess } from 'node:child_process';
import { Worker as Thread } from 'node:worker_threads';
import { fromSandbox, type FromSandbox, type ToSandbox } from './protocol.js';
import { RUNNER_SOURCE } from './runner-source.js';

/** Where sandboxed handlers run: worker threads (cheap, shared process) or child processes (a native crash stays inside). */
export type SandboxRunner = 'threads' | 'processes';

export interface SandboxEvents {
  message(message: FromSandbox): void;
  /** The sandbox is gone (crash, exit, memory limit, terminate()): what happened, in words. */
  exit(why: string): void;
}

/**
 * One thread or child process running lib/engine/sandbox/runner-source.ts.
 * A child process gets the memory limit as --max-old-space-size and none of
 * the parent's execArgv (a test runner's or loader's flags are not the
 * handler's); its stdout and stderr are the parent's.
 */
export class Sandbox {
  private readonly thread: Thread | undefined;
  private readonly child: ChildProcess | undefined;
  private gone = false;
  private ending = false;
  /** What a thread reported before it exited (its 'error' event comes first). */
  private cause: string | undefined;

  constructor(runner: SandboxRunner, maxMemoryMb: number | undefined, private readonly events: SandboxEvents) {
    if (runner === 'threads') {
      this.thread = new Thread(RUNNER_SOURCE, { eval: true, ...(maxMemoryMb !== undefined && { resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb } }) });
      this.thread.on('message', (m: unknown) => this.deliver(m));
      this.thread.on('error', (err: Error & { code?: string }) => {
        this.cause = err.code === 'ERR_WORKER_OUT_OF_MEMORY' ? `ran out of memory (maxMemoryMb ${maxMemoryMb ?? 'default'})` : `threw outside the job: ${err.message}`;
      });
      this.thread.on('exit', (code) => this.exited(this.cause ?? `exited with code ${code}`));
    } else {
      const args = [...(maxMemoryMb !== undefined ? [`--max-old-space-size=${maxMemoryMb}`] : []), '-e', RUNNER_SOURCE];
      this.child = spawn(process.execPath, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced', env: process.env });
      this.child.on('message', (m: unknown) => this.deliver(m));
      this.child.on('error', (err) => (this.cause = err.message));
      this.child.on('exit', (code, signal) => this.exited(this.cause ?? processEnd(code, signal, maxMemoryMb)));
    }
  }

  /** A short name for messages: "worker thread 3" or "child process 4242". */
  get label(): string {
    return this.thread ? `worker thread ${this.thread.threadId}` : `child process ${this.child?.pid ?? '?'}`;
  }

  get alive(): boolean {
    return !this.gone;
  }

  send(message: ToSandbox): void {
    if (this.gone) return;
    try {
      if (this.thread) this.thread.postMessage(message);
      else this.child?.send(message);
    } catch (err) {
      // The channel closed under us: the exit event follows and fails the job.
      this.cause ??= `could not be reached: ${(err as Error).message}`;
    }
  }

  /** Ends the sandbox (a pool closing, or a job that did not stop when aborted). */
  async terminate(): Promise<void> {
    if (this.gone) return;
    this.ending = true;
    if (this.thread) {
      await this.thread.terminate();
      return;
    }
    const child = this.child!;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  private deliver(raw: unknown): void {
    const message = fromSandbox(raw);
    if (message) this.events.message(message);
  }

  private exited(why: string): void {
    if (this.gone) return;
    this.gone = true;
    this.events.exit(this.ending ? 'was stopped' : why);
  }
}

function processEnd(code: number | null, signal: NodeJS.Signals | null, maxMemoryMb: number | undefined): string {
  // V8 aborts when the heap limit is reached: SIGABRT, or exit code 134 when a shell reports it.
  if (signal === 'SIGABRT' || code === 134) return `ran out of memory or aborted (maxMemoryMb ${maxMemoryMb ?? 'default'})`;
  return signal ? `was killed by ${signal}` : `exited with code ${code}`;
}
