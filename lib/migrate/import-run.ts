import type { ChildFailure, ChildRef, ImportedJob, ImportOutcome, ImportState, Store } from '../store/store.js';
import type { RedisClientLike } from '../store/redis-client.js';
import { mapJob, policyOf, spoolIdOf, type Mapped } from './bullmq-job.js';
import { BullSource, parseJobKey, type BullIndex, type BullJob } from './bullmq-source.js';
import { importSchedulers } from './import-schedulers.js';
import type { BullState, ImportProgress, JobNote, QueueReport, ReportBuilder } from './report.js';

/** The Spool state each BullMQ index enters. */
const ENTERS: Partial<Record<BullState, ImportState>> = {
  wait: 'waiting', paused: 'waiting', prioritized: 'waiting', delayed: 'delayed',
  'waiting-children': 'waiting-children', failed: 'failed', completed: 'completed',
};

/** A job's plan: written as mapped, or skipped with a reason (a category) and its particulars. */
type Plan = Mapped | { readonly skip: string; readonly detail?: string };

export interface RunSettings {
  readonly client: RedisClientLike;
  readonly prefix: string;
  readonly store: Store;
  readonly importJobs: (queue: string, jobs: readonly ImportedJob[]) => Promise<ImportOutcome[]>;
  readonly queues: readonly string[];
  readonly states: ReadonlySet<BullState>;
  readonly dryRun: boolean;
  readonly removeImported: boolean;
  readonly batchSize: number;
  readonly builder: ReportBuilder;
  readonly onProgress?: (progress: ImportProgress) => void;
}

/**
 * One import: every state of every queue, state by state (flow parents of
 * all queues before any child, so a child is linked to a parent that is
 * there), a page at a time. Nothing is kept per job beyond its page: the
 * report counts, and lists the jobs with something to say.
 */
export class ImportRun {
  private readonly sources = new Map<string, BullSource>();
  private readonly reports = new Map<string, QueueReport>();
  /** Flow parents settled (imported, or there already) or refused, by BullMQ key: their children ask once. */
  private readonly parents = new Map<string, string | true>();
  /** Parents imported ahead of their queue's pass (for a child found first): that pass does not count them again. */
  private readonly early = new Set<string>();
  private readonly inRun: ReadonlySet<string>;

  constructor(private readonly s: RunSettings) {
    this.inRun = new Set(s.queues);
    for (const queue of s.queues) this.reports.set(queue, s.builder.queue(queue));
  }

  private source(queue: string): BullSource {
    let source = this.sources.get(queue);
    if (!source) this.sources.set(queue, (source = new BullSource(this.s.client, this.s.prefix, queue)));
    return source;
  }

  async run(order: readonly BullState[]): Promise<void> {
    for (const state of order) {
      if (!this.s.states.has(state)) continue;
      for (const queue of this.s.queues) await this.state(queue, state);
    }
    if (!this.s.states.has('wait') && !this.s.states.has('paused')) return;
    // A paused queue stays paused: with its waiting jobs (an import of delayed jobs alone must not pause a live queue).
    for (const queue of this.s.queues) {
      if (!(await this.source(queue).isPaused())) continue;
      if (!this.s.dryRun) await this.s.store.pause(queue);
      this.reports.get(queue)!.paused = true;
    }
  }

  private async state(queue: string, state: BullState): Promise<void> {
    const source = this.source(queue);
    const report = this.reports.get(queue)!;
    if (state === 'schedulers') {
      await importSchedulers(source, report, this.s);
      return;
    }
    if (state === 'active') {
      // BullMQ's workers hold them: they finish there (listed, never imported).
      for await (const page of source.pages('active', this.s.batchSize)) {
        for (const { id } of page) {
          this.s.builder.tally(report, state).found += 1;
          this.s.builder.record(report, { queue, state, bullId: id, outcome: 'skipped', reason: "active: BullMQ's workers finish it", notCarried: [] });
        }
      }
      return;
    }
    const index = state as BullIndex;
    const total = await source.size(index);
    const tally = this.s.builder.tally(report, state);
    let done = 0;
    // What the last page removed from BullMQ's index, for the pager (filled below, read when the next page is asked for).
    const removed = new Set<string>();
    for await (const page of source.pages(index, this.s.batchSize, removed)) {
      removed.clear();
      const jobs = await source.readJobs(page.map((e) => e.id));
      const writes: { job: ImportedJob; note: JobNote }[] = [];
      const removals: string[] = [];
      for (const [i, entry] of page.entries()) {
        const job = jobs[i] ?? null;
        if (this.early.delete(`${queue}\n${entry.id}`)) {
          removals.push(entry.id);
          continue;
        }
        tally.found += 1;
        const plan = job ? await this.plan(source, state, job, entry.score) : { skip: 'gone from BullMQ during the import' };
        const base = { queue, state, bullId: entry.id, spoolId: spoolIdOf(entry.id) };
        if ('skip' in plan) this.s.builder.record(report, { ...base, outcome: 'skipped', reason: plan.skip, ...(plan.detail && { detail: plan.detail }), notCarried: [] });
        else writes.push({ job: plan.job, note: { ...base, outcome: 'imported', notCarried: plan.notes } });
      }
      const outcomes = await this.write(queue, writes.map((w) => w.job));
      writes.forEach((w, i) => this.s.builder.record(report, { ...w.note, outcome: outcomes[i]! }));
      if (this.s.removeImported && !this.s.dryRun) {
        // Only now: each removed job's Spool copy is written (or was there).
        removals.push(...writes.map((w) => w.note.bullId));
        await Promise.all(removals.map((id) => source.removeJob(index, id)));
        for (const id of removals) removed.add(id);
        tally.removed += removals.length;
      }
      done += page.length;
      this.s.onProgress?.({ queue, state, done, total: Math.max(total, done) });
    }
    if ((index === 'wait' || index === 'paused') && !this.s.removeImported && (await source.size(index)) !== total) {
      report.warnings.push(`${state}: BullMQ's list changed during the import (workers or producers still running): run the import again to take the jobs it moved`);
    }
  }

  /** Writes a batch (a dry run only looks: a job whose id exists would be left as it is). */
  private async write(queue: string, jobs: readonly ImportedJob[]): Promise<ImportOutcome[]> {
    if (jobs.length === 0) return [];
    if (!this.s.dryRun) return this.s.importJobs(queue, jobs);
    return Promise.all(jobs.map(async (j) => ((await this.s.store.getJob(queue, j.id)) ? 'exists' : 'imported')));
  }

  private async plan(source: BullSource, state: BullState, job: BullJob, score: number): Promise<Plan> {
    const h = job.hash;
    const now = Date.now();
    const enters = ENTERS[state]!;
    const dueAt = state === 'delayed' ? Math.floor(score / 0x1000) : undefined;
    if (dueAt !== undefined && dueAt > now && h.rjk !== undefined && (await source.hasRepeat(h.rjk))) {
      return { skip: 'scheduler tick: its scheduler adds it in Spool', detail: `scheduler ${h.rjk}` };
    }
    const notes: string[] = [];
    let parent: (ChildRef & { policy: ReturnType<typeof policyOf> }) | undefined;
    if (h.parentKey !== undefined) {
      if (enters === 'failed' || enters === 'completed') {
        notes.push(`flow parent ${h.parentKey} not linked: the job is finished`);
      } else {
        const settled = await this.ensureParent(h.parentKey);
        if (settled !== true) return { skip: 'flow parent not imported', detail: settled };
        const ref = parseJobKey(this.s.prefix, h.parentKey)!;
        parent = { queue: ref.queue, id: spoolIdOf(ref.id), policy: policyOf(parseOpts(h.opts), notes) };
      }
    }
    let children: ChildRef[] | undefined;
    let failures: { child: ChildRef; failure: ChildFailure }[] | undefined;
    let entersAs = enters;
    if (enters === 'waiting-children') {
      const pending = await source.dependencies(job.id);
      children = [];
      for (const key of pending) {
        const blocker = await this.childBlocker(key);
        if (blocker) return { skip: 'flow child cannot be imported', detail: blocker };
        const ref = parseJobKey(this.s.prefix, key)!;
        children.push({ queue: ref.queue, id: spoolIdOf(ref.id) });
      }
      // Its last child finished meanwhile: it waits for nothing.
      if (children.length === 0) entersAs = 'waiting';
      failures = Object.entries(await source.ignoredFailures(job.id)).flatMap(([key, message]) => {
        const ref = parseJobKey(this.s.prefix, key);
        return ref ? [{ child: { queue: ref.queue, id: spoolIdOf(ref.id) }, failure: { state: 'failed' as const, reason: 'error', message, policy: 'ignore' as const } }] : [];
      });
    }
    const mapped = mapJob({ job, queue: source.queue, state: entersAs, dueAt, prefix: this.s.prefix, parent, children, failures }, now);
    if (mapped.job.id.length > 256) return { skip: 'id too long for Spool (256 characters at most)', detail: job.id.slice(0, 64) };
    return { job: mapped.job, notes: [...notes, ...mapped.notes] };
  }

  /** Why a parent's pending child cannot come along (undefined: it can). */
  private async childBlocker(childKey: string): Promise<string | undefined> {
    const ref = parseJobKey(this.s.prefix, childKey);
    if (!ref) return `child ${childKey} is not under prefix "${this.s.prefix}"`;
    if (!this.inRun.has(ref.queue)) return `child ${ref.id} is in queue "${ref.queue}", not in this import: import both queues in one run`;
    const source = this.source(ref.queue);
    if (await source.isActive(ref.id)) return `child ${ref.queue}/${ref.id} is active in BullMQ: import again once BullMQ's workers finished it`;
    if (await source.inSorted('failed', ref.id)) return `child ${ref.queue}/${ref.id} failed in BullMQ and its parent still waits for it`;
    return undefined;
  }

  /** Makes sure a child's flow parent is in Spool, importing it (and its own parents) first: true, or why not. */
  private async ensureParent(parentKey: string): Promise<string | true> {
    const known = this.parents.get(parentKey);
    if (known !== undefined) return known;
    const settled = await this.settleParent(parentKey);
    // Bounded: a run with very many flows forgets the oldest answers (asking again is only slower).
    if (this.parents.size >= 10_000) this.parents.delete(this.parents.keys().next().value!);
    this.parents.set(parentKey, settled);
    return settled;
  }

  private async settleParent(parentKey: string): Promise<string | true> {
    const ref = parseJobKey(this.s.prefix, parentKey);
    if (!ref) return `parent ${parentKey} is not under prefix "${this.s.prefix}"`;
    if (!this.inRun.has(ref.queue)) return `parent ${ref.id} is in queue "${ref.queue}", not in this import: import both queues in one run`;
    if (!this.s.states.has('waiting-children')) return 'state waiting-children is not imported';
    if (await this.s.store.getJob(ref.queue, spoolIdOf(ref.id))) return true;
    const source = this.source(ref.queue);
    const [job] = await source.readJobs([ref.id]);
    if (!job || !(await source.inSorted('waiting-children', ref.id))) return `parent ${ref.queue}/${ref.id} does not wait for its children in BullMQ`;
    const plan = await this.plan(source, 'waiting-children', job, 0);
    if ('skip' in plan) return `parent ${ref.queue}/${ref.id}: ${plan.skip}${plan.detail ? ` (${plan.detail})` : ''}`;
    const [outcome] = await this.write(ref.queue, [plan.job]);
    const report = this.reports.get(ref.queue)!;
    this.s.builder.tally(report, 'waiting-children').found += 1;
    this.s.builder.record(report, { queue: ref.queue, state: 'waiting-children', bullId: ref.id, spoolId: plan.job.id, outcome: outcome!, notCarried: plan.notes });
    this.early.add(`${ref.queue}\n${ref.id}`);
    return true;
  }
}

function parseOpts(raw: string | undefined): Record<string, unknown> {
  try {
    const opts: unknown = JSON.parse(raw ?? '{}');
    return opts !== null && typeof opts === 'object' ? (opts as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
