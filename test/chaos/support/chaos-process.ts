import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { WorkerOptions } from '../../../lib/index.js';
import { waitFor } from '../../helpers/wait-for.js';

export interface ChaosMessage {
  readonly type: string;
  readonly id?: string;
  readonly name?: string;
  readonly message?: string;
  readonly kind?: string;
  readonly reason?: string | null;
  readonly aborted?: boolean;
  readonly stalled?: number;
  readonly result?: unknown;
}

export interface ChaosWorkerConfig {
  readonly url: string;
  /** Root node URLs of a Redis Cluster: the worker connects there instead of `url`. */
  readonly cluster?: readonly string[];
  readonly prefix: string;
  readonly queue: string;
  /** The queue's shard count (Queue option `shards`). */
  readonly shards?: number;
  readonly worker?: Omit<WorkerOptions, 'store' | 'logger' | 'backoffStrategy'>;
  /** connect({ wait: true }): ride out a Redis that is down at boot. */
  readonly wait?: boolean;
  /** Where 'effect' jobs append their side effect. */
  readonly effectsFile?: string;
  readonly verbose?: boolean;
}

const FIXTURE = join(process.cwd(), 'test', 'chaos', 'support', 'chaos-worker.mjs');

/**
 * A worker in a child process (support/chaos-worker.mjs) with everything it
 * reports kept in order. kill() sends SIGKILL to its own pid only.
 */
export class ChaosWorker {
  readonly messages: ChaosMessage[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: ChaosMessage) => this.messages.push(m));
    this.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Forks the worker; with `ready` (default) resolves once it listens for work. */
  static async start(config: ChaosWorkerConfig, options: { readonly ready?: boolean } = {}): Promise<ChaosWorker> {
    const child = fork(FIXTURE, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const worker = new ChaosWorker(child);
    if (options.ready ?? true) await worker.ready();
    return worker;
  }

  async ready(timeout = 20_000): Promise<void> {
    let exit: { code: number | null } | undefined;
    void this.exited.then((e) => (exit = e));
    await waitFor(() => {
      if (exit) throw new Error(`chaos worker exited with ${exit.code} before it was ready`);
      return this.has('ready');
    }, { timeout, interval: 20, message: 'chaos worker ready' });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  has(type: string, id?: string): boolean {
    return this.messages.some((m) => m.type === type && (id === undefined || m.id === id));
  }

  of(type: string): ChaosMessage[] {
    return this.messages.filter((m) => m.type === type);
  }

  async close(timeout = 5000): Promise<void> {
    if (this.alive && this.child.connected) this.child.send({ type: 'close', timeout });
    await this.exited;
  }

  async kill(): Promise<void> {
    if (this.alive) this.child.kill('SIGKILL');
    await this.exited;
  }
}
