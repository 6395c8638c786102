/**
 * Runs tasks at most one per event-loop turn, the first at once.
 *
 * Why a worker starts jobs through this: node-redis writes the commands queued
 * during a turn in one batch at the end of it (setImmediate). A claim or a
 * completion reply often brings several jobs in one read; starting all their
 * handlers in that turn queues all their completions into one write, so Redis
 * idles while node runs the handlers and node idles while Redis runs the whole
 * batch, in lock-step. Spreading the starts over turns lets the first
 * completions reach Redis while node is still starting the others: measured
 * on the c10 bench row, ~12k → ~17k jobs/s with the same Redis work per job.
 */
export class TurnPacer {
  private readonly tasks: (() => void)[] = [];
  /** A turn is running a task, or one is scheduled: new tasks queue. */
  private busy = false;

  run(task: () => void): void {
    if (this.busy) {
      this.tasks.push(task);
      return;
    }
    this.busy = true;
    setImmediate(this.next);
    task();
  }

  /** Tasks not started yet. */
  get pending(): number {
    return this.tasks.length;
  }

  private readonly next = (): void => {
    const task = this.tasks.shift();
    if (task === undefined) {
      this.busy = false;
      return;
    }
    setImmediate(this.next);
    task();
  };
}
