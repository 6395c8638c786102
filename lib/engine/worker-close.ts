import type { SpoolLogger } from '../logger.js';
import type { Store } from '../store/store.js';
import { WorkerClosingError } from './errors.js';
import type { Claimer } from './claimer.js';
import type { CloseLedger, WorkerCloseResult } from './close-ledger.js';
import { flushFailureLog, plural, seconds } from './failure-log.js';
import type { HeldJob } from './held-job.js';
import type { Slots } from './slots.js';
import type { Upkeep } from './upkeep.js';

/** What a closing worker's steps touch (lib/engine/worker.ts). */
export interface ClosingWorker<Data, Result> {
  readonly id: string;
  readonly queueName: string;
  readonly logger: SpoolLogger;
  readonly startup: Promise<void> | undefined;
  readonly claimer: Claimer;
  readonly upkeep: Upkeep<Data, Result>;
  readonly slots: Slots<Data, Result>;
  readonly ledger: CloseLedger;
  /** Aborts a held job and gives it back to waiting, attempt not counted. */
  handBack(held: HeldJob<Data, Result>): Promise<void>;
  /** Past the timeout: writes still retrying give up. */
  force(): void;
  report(err: unknown, context: string): void;
}

/**
 * The shutdown of a started worker, in order: stop claiming and taking
 * pushes (lib/engine/upkeep.ts), hand back jobs
 * never started (the prefetch reserve, capped ones), let running jobs finish
 * for up to `timeout` ms, abort and hand back the rest, wait for every
 * outcome write (one Redis does not answer gives up at its next failure past
 * the timeout), stop renewing and listening, write the summary of failure
 * lines held back. Each step is guarded so one failure does not skip the
 * rest. Says (log lines, and the result) which writes landed and which
 * were given up.
 */
export async function closeWorker<Data, Result>(w: ClosingWorker<Data, Result>, timeout: number): Promise<WorkerCloseResult> {
  const step = async (what: string, action: () => unknown): Promise<void> => {
    try {
      await action();
    } catch (err) {
      w.report(err, `shutdown step "${what}" failed`);
    }
  };
  const { slots, ledger } = w;
  const jobs = (n: number): string => `${plural(n, 'job')} of queue "${w.queueName}"`;
  ledger.open();
  await step('wait for startup', () => w.startup);
  await step('stop claiming', () => {
    w.claimer.stop();
    return w.upkeep.stopLooking();
  });
  await step('wait for claims in flight', () => w.claimer.settled());
  await step('stop taking pushes', () => w.upkeep.stopPushes());
  await step('hand back jobs never started', () => Promise.all(slots.unstarted().map((h) => w.handBack(h))));
  if (slots.size > 0) w.logger.log(`worker ${w.id} closing: waiting up to ${seconds(timeout)} for ${plural(slots.size, 'running job')} of queue "${w.queueName}"`);
  await step('let running jobs finish', () => slots.whenEmpty(timeout));
  w.force();
  // Held past the timeout: a handler still running, or a finished one whose outcome write is still being retried.
  const running = slots.values().filter((h) => !h.finishing).length;
  const writing = ledger.outstanding;
  if (running > 0) {
    w.logger.warn(`worker ${w.id} closing: ${jobs(running)} still running after ${seconds(timeout)}; aborting them and handing them back to waiting`);
  }
  if (writing > 0) {
    w.logger.warn(`worker ${w.id} closing: the outcome of ${jobs(writing)} not written after ${seconds(timeout)} (Redis does not answer); one more try each, then it is given up`);
  }
  await step('hand back the rest', () => Promise.all(slots.values().map((h) => w.handBack(h))));
  await step('settle every write', () => ledger.settled());
  const result = ledger.result(running > 0);
  if (result.givenUp.length > 0) {
    w.logger.warn(
      `worker ${w.id} closing: gave up writing what became of ${jobs(result.givenUp.length)} (${result.givenUp.join(', ')}): they stay active until their leases expire, then run again`,
    );
  } else if (writing > 0) {
    w.logger.log(`worker ${w.id} closing: every outcome write still out at the timeout landed`);
  }
  await step('stop renewing leases', () => w.upkeep.stopLeases());
  await step('leave the workers list', () => w.upkeep.stopBeating());
  await step('unsubscribe', () => w.upkeep.stopListening());
  // Failure lines held back (past logFailures.linesPerInterval) are told now, not after the worker is gone.
  await step('summarize held failure lines', () => flushFailureLog(w.logger, w.queueName));
  return result;
}

/** What giving a held job back touches in its worker. */
export interface GivingBack<Data, Result> {
  readonly store: Store;
  readonly queueName: string;
  /** The worker's writes: a hand-back is one. */
  readonly ledger: CloseLedger;
  /** The job's run is over (for a started job). */
  endRun(held: HeldJob<Data, Result>): void;
  /** Lets the job's slot go (nothing claimed for it: the worker is closing or paused). */
  freeSlot(held: HeldJob<Data, Result>): void;
  report(err: unknown, context: string): void;
}

/**
 * Aborts a held job (job.signal: WorkerClosingError) and gives it back to
 * waiting without counting the attempt: at shutdown, and for the jobs a
 * paused worker holds but never started. Recorded as the job's write, so a
 * second hand-back (the shutdown's last step) waits for the first.
 */
export function handBack<Data, Result>(held: HeldJob<Data, Result>, w: GivingBack<Data, Result>): Promise<void> {
  if (!held.finishing) {
    held.finishing = true;
    held.writing = w.ledger.track(held.job.id, 'hand-back', giveBack(held, w));
  }
  return held.writing ?? Promise.resolve();
}

async function giveBack<Data, Result>(held: HeldJob<Data, Result>, w: GivingBack<Data, Result>): Promise<void> {
  held.clearTimer();
  if (held.started) w.endRun(held);
  held.abort(new WorkerClosingError(held.job.id));
  try {
    await w.store.release(w.queueName, held.lease);
  } catch (err) {
    w.report(err, `handing job ${held.job.id} back failed; it returns to waiting when its lease expires`);
    throw err;
  } finally {
    w.freeSlot(held);
  }
}
