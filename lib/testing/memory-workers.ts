import { byStart, type WorkerBeat, type WorkerInfo } from '../store/worker-registry.js';

/** lua/worker-beat.lua and worker-list.lua for MemoryStore: each queue's live workers, by the store's clock. */
export class MemoryWorkers {
  private readonly byQueue = new Map<string, Map<string, WorkerInfo>>();

  beat(queue: string, worker: WorkerBeat, staleMs: number, now: number): void {
    let workers = this.byQueue.get(queue);
    if (!workers) this.byQueue.set(queue, (workers = new Map()));
    workers.set(worker.id, { ...worker, seenAt: now });
    for (const [id, w] of workers) if (w.seenAt < now - staleMs) workers.delete(id);
  }

  /** Pause (true) / resume (false) requests waiting for a worker's heartbeat, by queue and worker id. */
  readonly requests = new Map<string, boolean>();

  forget(queue: string, id: string): void {
    this.byQueue.get(queue)?.delete(id);
  }

  forgetQueue(queue: string): void {
    this.byQueue.delete(queue);
  }

  list(queue: string, staleMs: number, now: number): WorkerInfo[] {
    return [...(this.byQueue.get(queue)?.values() ?? [])].filter((w) => w.seenAt >= now - staleMs).sort(byStart);
  }
}
