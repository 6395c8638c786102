import { InvalidArgumentError } from '../engine/errors.js';
import { Queue } from '../engine/queue.js';
import type { Store } from '../store/store.js';
import { readSchedulers } from './bullmq-schedulers.js';
import type { BullSource } from './bullmq-source.js';
import type { QueueReport, ReportBuilder } from './report.js';

/**
 * Job schedulers and legacy repeatable jobs become Spool schedulers, written
 * by Queue.upsertScheduler() (checked and encoded by the engine). One whose
 * id Spool has already is left as it is: its first tick was set from the
 * time of the first import.
 */
export async function importSchedulers(
  source: BullSource,
  report: QueueReport,
  s: { readonly store: Store; readonly builder: ReportBuilder; readonly dryRun: boolean; readonly removeImported: boolean },
): Promise<void> {
  const queue = new Queue(source.queue, { store: s.store, tracing: false });
  const tally = s.builder.tally(report, 'schedulers');
  for (const reading of await readSchedulers(source, Date.now())) {
    tally.found += 1;
    const base = { queue: source.queue, state: 'schedulers' as const, bullId: reading.key };
    if ('skip' in reading) {
      s.builder.record(report, { ...base, outcome: 'skipped', reason: 'scheduler not carried', detail: reading.skip, notCarried: [] });
      continue;
    }
    const { plan } = reading;
    let outcome: 'imported' | 'exists' = 'imported';
    try {
      if (await queue.getScheduler(plan.id)) outcome = 'exists';
      else if (!s.dryRun) await queue.upsertScheduler(plan.id, plan.repeat, plan.job);
    } catch (err) {
      if (!(err instanceof InvalidArgumentError)) throw err;
      s.builder.record(report, { ...base, spoolId: plan.id, outcome: 'skipped', reason: 'scheduler not valid in Spool', detail: err.message, notCarried: [] });
      continue;
    }
    s.builder.record(report, { ...base, spoolId: plan.id, outcome, notCarried: plan.notes });
    if (s.removeImported && !s.dryRun) {
      // The scheduler and its pending tick (which Spool's scheduler replaces) leave BullMQ together.
      const [next] = (await source.repeats()).filter((r) => r.key === reading.key);
      if (next && next.next > Date.now()) await source.removeJob('delayed', `repeat:${reading.key}:${next.next}`);
      await source.removeRepeat(reading.key);
      tally.removed += 1;
    }
  }
}
