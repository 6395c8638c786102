import { isDeepStrictEqual } from 'node:util';
import type { ProcessorMetadata } from './decorators.js';
import { SpoolBootstrapError } from './errors.js';
import type { ProcessorDefinition } from './processor-explorer.js';
import type { HandlerEntry, ProcessorHandlers } from './processor-handlers.js';
import { queueKey } from './queue-registry.js';

/**
 * Two `@Processor` classes of one queue declare a handler for the same job
 * name (or both a fallback `@OnJob()`): one pool has one handler table.
 * `jobName` is undefined for two fallbacks.
 *
 * Do: remove one of the two handlers, or move one processor to its own queue.
 */
export class ProcessorOverlapError extends SpoolBootstrapError {
  constructor(
    readonly queue: string,
    readonly jobName: string | undefined,
    readonly classes: readonly [string, string],
  ) {
    const what = jobName === undefined ? 'a fallback @OnJob()' : `a handler for job name "${jobName}"`;
    super(`@Processor('${queue}') on ${classes[1]}`, `declares ${what} of queue "${queue}", and so does ${classes[0]}`, 'one pool runs every processor class of a queue: give each job name one handler across the classes');
  }
}

/**
 * The worker pool of one queue: every `@Processor` class of the queue
 * (handlers spread over feature modules), one handler table, one set of pool
 * options. Shaped like a definition so the modes (batch, sandbox) read it alike.
 */
export interface ProcessorPool {
  /** The classes, for messages: 'MailProcessor' or 'MailProcessor, WelcomeProcessor'. */
  readonly className: string;
  /** The queue, connection and the pool options every class agreed on. */
  readonly metadata: ProcessorMetadata;
  readonly handlers: ProcessorHandlers;
  readonly members: readonly ProcessorDefinition[];
  /** The class whose method an entry is. */
  memberOf(entry: HandlerEntry): ProcessorDefinition;
}

/**
 * Groups the explorer's definitions into one pool per queue and connection.
 * Job names may not overlap between the classes of a pool; pool options (the
 * worker options of `@Processor`) set by several classes must agree, and a
 * sandboxed processor runs its whole module, so it stays alone on its queue.
 */
export function processorPools(definitions: readonly ProcessorDefinition[]): ProcessorPool[] {
  const groups = new Map<string, ProcessorDefinition[]>();
  for (const d of definitions) {
    const key = queueKey(d.metadata.queue, d.metadata.connection);
    groups.set(key, [...(groups.get(key) ?? []), d]);
  }
  return [...groups.values()].map(pool);
}

function pool(members: ProcessorDefinition[]): ProcessorPool {
  const first = members[0]!;
  if (members.length === 1) return { ...first, members, memberOf: () => first };
  const { queue } = first.metadata;
  const sandboxed = members.find((m) => m.metadata.options.sandbox !== undefined);
  if (sandboxed) {
    const other = members.find((m) => m !== sandboxed)!;
    throw new SpoolBootstrapError(`@Processor('${queue}') options.sandbox of ${sandboxed.className}`, `runs every job of queue "${queue}" in its module, so ${other.className}'s handlers would never run`, 'give the sandboxed processor a queue of its own');
  }
  const owners = new Map<HandlerEntry, ProcessorDefinition>();
  const byName = new Map<string, HandlerEntry>();
  let fallback: HandlerEntry | undefined;
  const caps: Record<string, number> = {};
  for (const m of members) {
    for (const [name, entry] of m.handlers.byName) {
      const known = byName.get(name);
      if (known) throw new ProcessorOverlapError(queue, name, [owners.get(known)!.className, m.className]);
      byName.set(name, entry);
      owners.set(entry, m);
    }
    if (m.handlers.fallback) {
      if (fallback) throw new ProcessorOverlapError(queue, undefined, [owners.get(fallback)!.className, m.className]);
      fallback = m.handlers.fallback;
      owners.set(fallback, m);
    }
    Object.assign(caps, m.handlers.caps);
  }
  return {
    className: members.map((m) => m.className).join(', '),
    metadata: { ...first.metadata, options: poolOptions(queue, members) },
    handlers: { byName, ...(fallback && { fallback }), caps, events: members.flatMap((m) => m.handlers.events) },
    members,
    memberOf: (entry) => owners.get(entry)!,
  };
}

/** The union of the classes' `@Processor` options; a key two classes set differently is refused, naming both. */
function poolOptions(queue: string, members: readonly ProcessorDefinition[]): ProcessorMetadata['options'] {
  const merged: Record<string, unknown> = {};
  const setBy = new Map<string, string>();
  for (const m of members) {
    for (const [key, value] of Object.entries(m.metadata.options)) {
      if (value === undefined) continue;
      const other = setBy.get(key);
      if (other !== undefined && !isDeepStrictEqual(merged[key], value)) {
        throw new SpoolBootstrapError(
          `@Processor('${queue}') options.${key} of ${m.className}`,
          `is ${JSON.stringify(value)}, but ${other} (same queue, same worker pool) sets ${JSON.stringify(merged[key])}`,
          `the pool has one ${key}: set it on one class, or the same on both`,
        );
      }
      merged[key] = value;
      setBy.set(key, m.className);
    }
  }
  return merged as ProcessorMetadata['options'];
}
