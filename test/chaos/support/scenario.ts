import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Queue, RedisStore } from '../../../lib/index.js';
import { redisUrl, silentLogger, uniquePrefix } from '../../helpers/store.js';
import { ChaosWorker, type ChaosWorkerConfig } from './chaos-process.js';

let clusterNodes: (() => { url: string }[]) | undefined;

/** From now on in this test file, scenario() without a URL runs on this Redis Cluster (test/cluster/chaos.spec.ts). */
export function useClusterScenarios(rootNodes: () => { url: string }[]): void {
  clusterNodes = rootNodes;
}

/** Short leases so that crash recovery takes seconds, not minutes. */
export const FAST_RECOVERY = { lockDuration: 1500, stalledInterval: 400, pollInterval: 500 } as const;

/**
 * One chaos scenario on a Redis URL: a store and queue in the test process
 * (producer and inspector), worker processes started on demand, a temp dir
 * for side-effect files. end() closes or kills every worker it started and
 * returns verify()'s findings for the caller to assert empty.
 */
export async function scenario(url?: string, workerDefaults: ChaosWorkerConfig['worker'] = FAST_RECOVERY, options: { readonly shards?: number } = {}) {
  const prefix = uniquePrefix('chaos');
  const queueName = 'q';
  // Without a URL: the file's Redis Cluster when it set one (useClusterScenarios), else the run's Redis.
  const cluster = url === undefined ? clusterNodes?.().map((n) => n.url) : undefined;
  url ??= redisUrl();
  const store = cluster ? new RedisStore({ cluster: { rootNodes: cluster.map((u) => ({ url: u })) }, prefix, logger: silentLogger }) : new RedisStore({ url }, { prefix, logger: silentLogger });
  await store.connect();
  const queue = new Queue(queueName, { store, shards: options.shards });
  const workers: ChaosWorker[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'spool-chaos-'));
  return {
    store,
    queue,
    prefix,
    dir,
    workers,
    config(extra: Partial<ChaosWorkerConfig> = {}): ChaosWorkerConfig {
      return { url: url!, ...(cluster && { cluster }), ...(options.shards && { shards: options.shards }), prefix, queue: queueName, worker: { ...workerDefaults, ...extra.worker }, effectsFile: join(dir, 'effects.log'), ...extra, ...(extra.worker && { worker: { ...workerDefaults, ...extra.worker } }) };
    },
    async worker(extra: Partial<ChaosWorkerConfig> = {}, options: { ready?: boolean } = {}): Promise<ChaosWorker> {
      const worker = await ChaosWorker.start(this.config(extra), options);
      workers.push(worker);
      return worker;
    },
    /** Gracefully closes live workers, then returns verify() for the queue. */
    async end(): Promise<string[]> {
      await Promise.all(workers.map((w) => (w.alive ? w.close() : w.exited)));
      const problems = await queue.verify();
      return problems;
    },
    async dispose(): Promise<void> {
      await Promise.all(workers.map((w) => w.kill()));
      await store.disconnect();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Scenario = Awaited<ReturnType<typeof scenario>>;

/** A waitFor condition that counts a failed Redis call (Redis restarting) as "not yet". */
export function tolerant(condition: () => Promise<boolean>): () => Promise<boolean> {
  return () => condition().catch(() => false);
}
