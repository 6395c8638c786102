import { Queue, Worker, type Handler, type WorkerOptions } from '../../lib/index.js';
import type { Store } from '../../lib/store/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { eventCases } from './cases-events.js';
import { flowCases } from './cases-flows.js';
import { handleCases } from './cases-handles.js';
import { importCases } from './cases-import.js';
import { jobCases } from './cases-jobs.js';
import { leaseCases } from './cases-leases.js';
import { limitCases } from './cases-limits.js';
import { opsCases } from './cases-ops.js';
import { schedulerCases } from './cases-schedulers.js';
import { recordCases } from './cases-records.js';
import { workerCases } from './cases-workers.js';

export type WorkerExtra = Omit<WorkerOptions, 'store'>;

/** What each group of cases gets: the store of the test, and queues and workers cleaned up after it. */
export interface ContractEnv {
  store(): Store;
  queue<D = unknown, R = unknown>(name: string): Queue<D, R>;
  worker<D = unknown, R = unknown>(name: string, handler: Handler<D, R>, options?: WorkerExtra): Worker<D, R>;
  state(q: Queue, id: string): Promise<string | undefined>;
  /** Runs the queue's waiting jobs one at a time and resolves with their names in start order. */
  runOrder(q: Queue, n: number, options?: WorkerExtra): Promise<string[]>;
}

/**
 * The Store contract: what a user of Queue, Worker and FlowProducer can
 * observe, the same on every store. Each store's spec file runs it
 * (redis.spec.ts, memory.spec.ts); the cases live in cases-*.ts. Time is real here, so the same assertions
 * hold on Redis; memory-clock.spec.ts covers the controllable clock.
 */
export function storeContract(label: string, open: () => Promise<Store>, close: (store: Store) => Promise<void>): void {
  describe(`Store contract: ${label}`, () => {
    let store: Store;
    const queues: Queue[] = [];
    const workers: Worker[] = [];

    beforeEach(async () => {
      store = await open();
    });

    afterEach(async () => {
      await Promise.all(workers.splice(0).map((w) => w.close({ timeout: 2000 })));
      const problems = (await Promise.all(queues.splice(0).map((q) => q.verify()))).flat();
      await close(store);
      expect(problems).toEqual([]);
    });

    const queue = <D = unknown, R = unknown>(name: string): Queue<D, R> => {
      const q = new Queue<D, R>(name, { store });
      queues.push(q as unknown as Queue);
      return q;
    };
    const worker = <D = unknown, R = unknown>(name: string, handler: Handler<D, R>, options: WorkerExtra = {}): Worker<D, R> => {
      const w = new Worker<D, R>(name, handler, { store, ...options });
      workers.push(w as unknown as Worker);
      return w;
    };
    const state = async (q: Queue, id: string) => (await q.getJob(id))?.state;
    const runOrder = async (q: Queue, n: number, options: WorkerExtra = {}): Promise<string[]> => {
      const order: string[] = [];
      worker(q.name, async (job) => void order.push(job.name), { concurrency: 1, claimBatch: 1, ...options });
      await waitFor(() => order.length === n, { message: `${n} jobs to run` });
      return order;
    };

    const env: ContractEnv = { store: () => store, queue, worker, state, runOrder };
    jobCases(env);
    leaseCases(env);
    flowCases(env);
    limitCases(env);
    recordCases(env);
    opsCases(env);
    eventCases(env);
    schedulerCases(env);
    workerCases(env);
    handleCases(env);
    importCases(env);
  });
}
