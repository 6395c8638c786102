import type { SpoolLogger } from '../logger.js';
import type { Claimer } from './claimer.js';
import { plural, seconds } from './failure-log.js';
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
 * for up to `timeout` ms, abort and hand back the rest, stop renewing and
 * listening. Each step is guarded so one failure does not skip the rest.
 */
export async function closeWorker<Data, Result>(w: ClosingWorker<Data, Result>, timeout: number): Promise<void> {
  const step = async (what: string, action: () => unknown): Promise<void> => {
    try {
      await action();
    } catch (err) {
      w.report(err, `shutdown step "${what}" failed`);
    }
  };
  const { slots } = w;
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
  if (slots.size > 0) {
    w.logger.warn(`worker ${w.id} closing: ${plural(slots.size, 'job')} of queue "${w.queueName}" still running after ${seconds(timeout)}; aborting them and handing them back to waiting`);
  }
  await step('hand back the rest', () => Promise.all(slots.values().map((h) => w.handBack(h))));
  await step('stop renewing leases', () => w.upkeep.stopLeases());
  await step('leave the workers list', () => w.upkeep.stopBeating());
  await step('unsubscribe', () => w.upkeep.stopListening());
}
