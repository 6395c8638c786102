import type { Queue } from '../../../lib/index.js';
import type { ChaosWorker } from './chaos-process.js';

/**
 * Jepsen-style bookkeeping of one run: what producers tried to add, what
 * Redis acknowledged, what ended completed. lost = acknowledged but never
 * completed; unexpected = completed but never attempted.
 */
export class Ledger {
  readonly attempted = new Set<string>();
  readonly acknowledged = new Set<string>();
  private stopped = false;
  private next = 0;
  addErrors = 0;

  /**
   * Adds jobs with ids of its own, one at a time per lane, until stop(); a
   * failed add is repeated with the same id (adding an existing id is a no-op),
   * so an add whose reply was lost is not counted twice.
   */
  produce(queue: Queue, lanes = 2, data: () => unknown = () => ({ mode: 'ok' }), pauseMs = 5): Promise<void> {
    const lane = async (): Promise<void> => {
      while (!this.stopped) {
        const id = `j${this.next++}`;
        this.attempted.add(id);
        for (;;) {
          try {
            await queue.add('work', data(), { jobId: id });
            this.acknowledged.add(id);
            break;
          } catch {
            this.addErrors += 1;
            if (this.stopped) break;
            await new Promise((r) => setTimeout(r, 50));
          }
        }
        if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
      }
    };
    return Promise.all(Array.from({ length: lanes }, lane)).then(() => undefined);
  }

  stop(): void {
    this.stopped = true;
  }

  /** Counts at the end of a run, from the ids in the queue's completed index. */
  tally(completedIds: readonly string[], workers: readonly ChaosWorker[]) {
    const completed = new Set(completedIds);
    const lost = [...this.acknowledged].filter((id) => !completed.has(id));
    const unexpected = [...completed].filter((id) => !this.attempted.has(id));
    const runs = new Map<string, number>();
    for (const w of workers) for (const m of w.of('completed')) runs.set(m.id!, (runs.get(m.id!) ?? 0) + 1);
    const duplicated = [...runs.values()].filter((n) => n > 1).length;
    return { attempted: this.attempted.size, acknowledged: this.acknowledged.size, completed: completed.size, lost, unexpected, duplicated };
  }
}
