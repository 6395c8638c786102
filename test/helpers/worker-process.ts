import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { RedisStore, WorkerOptions } from '../../lib/index.js';
import { PostgresStore } from '../../lib/postgres/index.js';
import { postgresUrlOf } from './postgres.js';
import { redisUrl } from './store.js';

export interface JobMessage {
  readonly type: 'started' | 'completed';
  readonly id: string;
  readonly name: string;
  readonly group: string | null;
}

/** Where the child's store is: the run's Redis under a prefix, or a PostgreSQL database and schema. */
export type ChildStore = { readonly url: string; readonly prefix: string } | { readonly postgres: { readonly connectionString: string; readonly schema: string } };

/**
 * The same queues as `store` (the test's own), for a worker process: on a
 * PostgreSQL run (test/postgres-suites) the child connects a PostgresStore
 * to the test's database and schema, else a RedisStore to the run's Redis.
 */
export function childStoreOf(store: RedisStore): ChildStore {
  const actual: unknown = store;
  if (actual instanceof PostgresStore) return { postgres: { connectionString: postgresUrlOf(actual), schema: actual.schema } };
  return { url: redisUrl(), prefix: store.prefix };
}

export type WorkerProcessConfig = ChildStore & {
  readonly queue: string;
  readonly worker?: Omit<WorkerOptions, 'store' | 'logger' | 'backoffStrategy'>;
  /** How long each job's handler runs, in ms. */
  readonly holdMs?: number;
};

const FIXTURE = join(process.cwd(), 'test', 'fixtures', 'worker-process.mjs');

/**
 * A Spool worker in a child process (test/fixtures/worker-process.mjs). It
 * reports every job it starts and completes; close() asks it to shut down
 * gracefully, kill() sends SIGKILL to its pid.
 */
export class WorkerProcess {
  readonly messages: JobMessage[] = [];
  private exited: Promise<number | null>;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (m: { type: string } & Partial<JobMessage>) => {
      if (m.type === 'started' || m.type === 'completed') this.messages.push(m as JobMessage);
    });
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  static async start(config: WorkerProcessConfig): Promise<WorkerProcess> {
    const child = fork(FIXTURE, [JSON.stringify(config)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const proc = new WorkerProcess(child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('worker process not ready within 10 s')), 10_000);
      child.on('message', (m: { type: string }) => {
        if (m.type !== 'ready') return;
        clearTimeout(timer);
        resolve();
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`worker process exited with ${code} before it was ready`));
      });
    });
    return proc;
  }

  get pid(): number {
    return this.child.pid!;
  }

  started(): JobMessage[] {
    return this.messages.filter((m) => m.type === 'started');
  }

  completed(): JobMessage[] {
    return this.messages.filter((m) => m.type === 'completed');
  }

  /** Graceful shutdown; resolves with the exit code. */
  async close(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.connected) this.child.send({ type: 'close' });
    return this.exited;
  }

  async kill(): Promise<void> {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await this.exited;
  }
}
