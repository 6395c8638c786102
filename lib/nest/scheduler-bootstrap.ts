import type { OnApplicationBootstrap, OnModuleInit } from '@nestjs/common';
import type { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { InvalidArgumentError } from '../engine/errors.js';
import type { Queue } from '../engine/queue.js';
import { checkSchedulerJob, normalizeRepeat, validateSchedulerId, type SchedulerJob, type SchedulerRepeat } from '../engine/scheduler-spec.js';
import type { OnJobMetadata, ProcessorMetadata } from './decorators.js';
import { SpoolBootstrapError } from './errors.js';
import type { QueueRegistry } from './queue-registry.js';
import { ON_JOB_METADATA, PROCESSOR_METADATA } from './tokens.js';

/** One scheduler to upsert at bootstrap, with where it was declared (for error messages). */
export interface SchedulerDefinition {
  readonly queue: string;
  readonly connection: string;
  readonly id: string;
  readonly repeat: SchedulerRepeat;
  readonly job: SchedulerJob;
  readonly at: string;
}

/** The `@OnJob({ schedule })` declarations of the app's processors, as plain definitions. */
export function discoverSchedules(discovery: DiscoveryService, scanner: MetadataScanner): SchedulerDefinition[] {
  const found: SchedulerDefinition[] = [];
  for (const wrapper of discovery.getProviders()) {
    const metatype = wrapper.metatype;
    if (typeof metatype !== 'function' || wrapper.inject || !metatype.prototype) continue;
    const processor = Reflect.getMetadata(PROCESSOR_METADATA, metatype) as ProcessorMetadata | undefined;
    if (!processor) continue;
    const prototype = metatype.prototype as Record<string, unknown>;
    for (const method of scanner.getAllMethodNames(prototype)) {
      const fn = prototype[method];
      const onJob = typeof fn === 'function' ? (Reflect.getMetadata(ON_JOB_METADATA, fn) as OnJobMetadata | undefined) : undefined;
      if (!onJob?.schedule) continue;
      const at = `@OnJob('${onJob.name ?? ''}') options.schedule of ${metatype.name}.${method}`;
      if (onJob.name === undefined) throw new SpoolBootstrapError(at, 'needs a job name', "schedule named jobs: @OnJob('digest', { schedule })");
      const { id, data, opts, ...repeat } = onJob.schedule;
      found.push({ queue: processor.queue, connection: processor.connection, id: id ?? onJob.name, repeat, job: { name: onJob.name, data, opts }, at });
    }
  }
  return found;
}

/**
 * Upserts the schedulers an app declares (@OnJob({ schedule }) and
 * registerQueue({ schedulers })) at application bootstrap. Upserting the
 * same definition changes nothing, so any number of instances booting at
 * once leave one scheduler and one pending tick each. With pruneSchedulers,
 * a queue's schedulers that nothing declares are removed.
 */
export class SpoolSchedulers implements OnModuleInit, OnApplicationBootstrap {
  private definitions: SchedulerDefinition[] = [];

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly registry: QueueRegistry,
  ) {}

  /** Checks every declaration before anything is written; the error names where it was declared. */
  onModuleInit(): void {
    const declared = this.registry.declaredSchedulers().flatMap((d) =>
      d.schedulers.map((s) => ({ queue: d.queue.name, connection: d.connection, id: s.id, repeat: s.repeat, job: s.job, at: s.at })),
    );
    const all = [...declared, ...discoverSchedules(this.discovery, this.scanner)];
    const seen = new Map<string, SchedulerDefinition>();
    for (const def of all) {
      const queue = this.registry.queue(def.queue, def.connection);
      if (!queue) throw new SpoolBootstrapError(def.at, `names queue "${def.queue}", which is not registered`);
      try {
        validateSchedulerId(def.id);
        normalizeRepeat(def.repeat);
        checkSchedulerJob(def.job);
      } catch (err) {
        if (err instanceof InvalidArgumentError) throw new SpoolBootstrapError(def.at, `is invalid: ${err.message}`);
        throw err;
      }
      const key = `${def.connection}\n${def.queue}\n${def.id}`;
      const other = seen.get(key);
      if (other && JSON.stringify([other.repeat, other.job]) !== JSON.stringify([def.repeat, def.job])) {
        throw new SpoolBootstrapError(def.at, `declares scheduler "${def.id}" of queue "${def.queue}" differently from ${other.at}`, 'give each scheduler one definition or its own id');
      }
      if (!other) seen.set(key, def);
    }
    this.definitions = [...seen.values()];
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const def of this.definitions) {
      try {
        await this.registry.queue(def.queue, def.connection)!.upsertScheduler(def.id, def.repeat, def.job);
      } catch (err) {
        if (err instanceof InvalidArgumentError) throw new SpoolBootstrapError(def.at, `is invalid: ${err.message}`);
        throw err;
      }
    }
    for (const { queue, connection, prune } of this.registry.declaredSchedulers()) {
      if (prune) await this.prune(queue, connection);
    }
  }

  private async prune(queue: Queue, connection: string): Promise<void> {
    const keep = new Set(this.definitions.filter((d) => d.queue === queue.name && d.connection === connection).map((d) => d.id));
    for (const scheduler of await queue.getSchedulers()) {
      if (!keep.has(scheduler.id)) await queue.removeScheduler(scheduler.id);
    }
  }
}
