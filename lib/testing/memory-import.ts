import type { ImportedJob, ImportOutcome } from '../store/store.js';
import { retention } from './memory-adapter.js';
import { emit } from './memory-events.js';
import { newJob } from './memory-jobs.js';
import { announceDelayed, place, waitScore, wake, type Ctx } from './memory-moves.js';
import { refOf } from './memory-state.js';

/** lua/import.lua: jobs enter with their history; an id that exists or was imported before is left as it is. */
export function importJobs(ctx: Ctx, jobs: readonly ImportedJob[]): ImportOutcome[] {
  const { q, now } = ctx;
  const { imported } = q;
  let woken = 0;
  let earliest: { id: string; at: number } | undefined;
  const out = jobs.map((j): ImportOutcome => {
    if (imported.has(j.id) || q.jobs.has(j.id)) return 'exists';
    const job = newJob(
      {
        id: j.id, name: j.name, data: j.data, opts: j.opts, delay: 0, priority: j.priority, lifo: j.lifo, maxAttempts: j.maxAttempts,
        deadline: 0, rc: retention(j.removeOnComplete), rf: retention(j.removeOnFail),
      },
      j.createdAt,
    );
    job.attempt = j.attempt;
    if (j.parent) job.parent = { ...j.parent };
    for (const r of j.results ?? []) job.results.set(refOf(r.child.queue, r.child.id), r.result);
    for (const f of j.failures ?? []) job.failures.set(refOf(f.child.queue, f.child.id), JSON.stringify(f.failure));
    q.jobs.set(j.id, job);
    switch (j.state) {
      case 'waiting':
        job.runAt = j.runAt;
        // FIFO in the order given, whatever the job's lifo: the caller sends the old system's order.
        if (place(ctx, job, waitScore(q, j.priority, false))) woken += 1;
        break;
      case 'delayed':
        job.state = 'delayed';
        job.runAt = j.runAt;
        q.delayed.add(j.id, j.runAt);
        if (!earliest || j.runAt < earliest.at) earliest = { id: j.id, at: j.runAt };
        break;
      case 'waiting-children':
        job.state = 'waiting-children';
        for (const c of j.children ?? []) job.deps.add(refOf(c.queue, c.id));
        q.waitingChildren.add(j.id, j.createdAt);
        break;
      case 'failed':
        job.state = 'failed';
        job.finishedAt = j.finishedAt ?? now;
        job.reason = j.error?.reason ?? 'error';
        job.error = { message: j.error?.message ?? '', stack: j.error?.stack ?? '', code: j.error?.code ?? '' };
        q.failed.add(j.id, job.finishedAt);
        break;
      case 'completed':
        job.state = 'completed';
        job.finishedAt = j.finishedAt ?? now;
        job.result = j.result ?? 'null';
        q.completed.add(j.id, job.finishedAt);
        break;
    }
    imported.add(j.id);
    emit(ctx, 'added', { jobId: j.id, name: j.name, state: job.state });
    return 'imported';
  });
  wake(ctx, woken);
  if (earliest) announceDelayed(ctx, earliest.id, earliest.at - now);
  return out;
}
