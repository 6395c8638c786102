import { EventEmitter } from 'node:events';
import type { EventReader, Store } from '../store/store.js';
import { InvalidArgumentError } from './errors.js';
import { validateQueueName } from './names.js';
import { QUEUE_EVENTS_HINTS } from '../common/option-hints.js';
import { checkOptions, describe, positiveInteger } from './options.js';
import { storeFor } from './shards.js';
import { compareIds, decodeEvent, type EventGap, type QueueEvent, type QueueEventMap, type QueueEventName } from './queue-events-types.js';

/** Options of `new QueueEvents(queue, options)`: the store, and where in the stream to start. */
export interface QueueEventsOptions {
  readonly store: Store;
  /** The queue's shard count, as its Queue was given: events of every shard, merged (docs/operations/cluster.md#sharded-queues). Default 1. */
  readonly shards?: number;
  /** Where to start: '$' (default) only new events, '0' every event the stream retains, or an event id (`lastId`, or any event's `id`) to resume after. */
  readonly from?: string;
  /** How long one blocking read waits before it checks again, in ms. Default 5,000. */
  readonly blockMs?: number;
  /**
   * Start reading at once (default true). With false nothing is opened until
   * `run()`, `ready()`, the first listener of an event or an async iteration:
   * a reader nobody listens to costs no connection.
   */
  readonly autorun?: boolean;
}

/** What QueueEvents emits: every event by its name, all of them as `event`, trimmed spans as `gap`, read failures as `error`. */
export type QueueEventsEmitted = { [K in QueueEventName]: [event: QueueEvent<K>] } & {
  event: [event: QueueEvent];
  gap: [gap: EventGap];
  /** A read failed (connection lost); the reader retries on its own and resumes after the last id delivered. */
  error: [error: Error];
  closed: [];
};

// A sharded queue's positions are one stream id per shard, comma-separated; #k: a row of a multi-job entry (store/event-rows).
const ID = /^\d+(-\d+)?(#\d+)?(,\d+(-\d+)?(#\d+)?)*$/;
const OPTIONS: readonly (keyof QueueEventsOptions)[] = ['store', 'from', 'blockMs', 'autorun', 'shards'];
/** Listeners that do not ask for events: adding them does not start a lazy reader. */
const PASSIVE = new Set<string | symbol>(['error', 'closed', 'newListener', 'removeListener']);

/**
 * A live view of one queue's event stream: blocking XREAD on a connection
 * of its own, from the last id it delivered, so a reconnect loses nothing
 * the stream still holds; when the stream was trimmed past that id it emits
 * `gap` instead of skipping silently. Every QueueEvents gets every event.
 *
 * @example
 * const events = new QueueEvents('emails', { store });
 * events.on('failed', (e) => console.log(e.jobId, e.next, e.reason));
 * for await (const e of events) if (e.event === 'completed') break;
 */
export class QueueEvents extends EventEmitter<QueueEventsEmitted> {
  readonly queueName: string;
  private readonly reader: EventReader;
  private readonly blockMs: number;
  private last: string;
  /**
   * How many entries the stream ever had up to `last` (XINFO entries-added
   * counts them): the stream trims from its head, so events were lost exactly
   * when more than that many were trimmed. Unknown after an explicit `from`
   * id until the first gap check; meanwhile any trim past `last` counts as a gap.
   */
  private position: number | undefined;
  private readonly fromStart: boolean;
  private closed = false;
  private started: Promise<void> | undefined;
  private loop: Promise<void> | undefined;

  constructor(queueName: string, options: QueueEventsOptions) {
    super();
    this.queueName = validateQueueName(queueName, 'QueueEvents queue name', "new QueueEvents('emails', { store })");
    checkOptions<QueueEventsOptions>(options, OPTIONS, 'QueueEvents options', QUEUE_EVENTS_HINTS);
    if (!options.store) throw new InvalidArgumentError('QueueEvents options.store', 'is required', 'pass a connected RedisStore');
    const from = options.from ?? '$';
    if (from !== '$' && !ID.test(from)) {
      throw new InvalidArgumentError('QueueEvents options.from', `must be '$', '0' or an event id like 1700000000000-0 or 1700000000000-0#3, got ${describe(from)}`);
    }
    this.blockMs = options.blockMs === undefined ? 5000 : positiveInteger(options.blockMs, 'QueueEvents options.blockMs', 60_000);
    this.reader = storeFor(options.store, this.queueName, options.shards, 'QueueEvents options.shards').openEvents(this.queueName);
    this.last = from === '0' ? '0-0' : from;
    this.fromStart = from === '0';
    if (options.autorun === false) {
      const onListener = (name: string | symbol): void => {
        if (PASSIVE.has(name)) return;
        (this.off as (n: string, l: typeof onListener) => this)('newListener', onListener);
        this.run();
      };
      (this.on as (n: string, l: typeof onListener) => this)('newListener', onListener);
    } else {
      this.run();
    }
  }

  /** Starts reading (once; a no-op when already started or closed). */
  run(): void {
    if (this.started || this.closed) return;
    this.started = this.start();
    this.loop = this.started.then(() => this.readLoop());
  }

  /** Starts reading if needed; resolves once the starting position is fixed: events after this are delivered. */
  async ready(): Promise<void> {
    this.run();
    await this.started;
  }

  /** The id of the last event delivered (resume a later reader with `from: lastId`). */
  get lastId(): string {
    return this.last;
  }

  private async start(): Promise<void> {
    for (let attempt = 0; (this.last === '$' || this.fromStart) && !this.closed; attempt++) {
      try {
        const info = await this.reader.info();
        if (this.fromStart) {
          // '0' asks for what is retained: what was trimmed before is not a gap.
          this.position = info ? info.added - info.length : 0;
          return;
        }
        this.last = info?.last ?? '0-0';
        this.position = info?.added ?? 0;
      } catch (err) {
        await this.failed(err, attempt);
      }
    }
  }

  private async readLoop(): Promise<void> {
    let failures = 0;
    while (!this.closed) {
      try {
        await this.checkGap();
        const entries = await this.reader.read(this.last, 500, this.blockMs);
        failures = 0;
        for (const entry of entries) {
          if (this.closed) return;
          this.last = entry.id;
          // position counts stream entries (XINFO entries-added does); an entry for several jobs ends with its last event.
          if (this.position !== undefined && !entry.entryContinues) this.position += 1;
          const event = decodeEvent(entry);
          if (!event) continue;
          // NOTE: the emitter's typing cannot tie a union payload to its own name; decodeEvent did.
          const emit = this.emit as (name: string, payload: QueueEvent) => boolean;
          emit.call(this, event.event, event);
          emit.call(this, 'event', event);
        }
      } catch (err) {
        if (this.closed) return;
        await this.failed(err, failures++);
      }
    }
  }

  /** Entries after the last one delivered were trimmed: say so, then go on from what is retained. */
  private async checkGap(): Promise<void> {
    const info = await this.reader.info();
    if (!info) return;
    const trimmed = info.added - info.length;
    const lost = this.position === undefined ? info.first !== null && compareIds(info.first, this.last) > 0 : trimmed > this.position;
    if (!lost) return;
    // Everything before the first retained entry is gone: that is where `last` now stands.
    this.position = trimmed;
    // XREAD after `last` now starts at the first retained entry.
    this.emit('gap', { event: 'gap', after: this.last, resumedAt: info.first });
  }

  private async failed(err: unknown, attempt: number): Promise<void> {
    if (this.listenerCount('error') > 0) this.emit('error', err instanceof Error ? err : new Error(String(err)));
    await new Promise((resolve) => setTimeout(resolve, Math.min(50 * 2 ** Math.min(attempt, 6), 2000)));
  }

  /** Every event (and gap) from now until close(), in stream order. */
  async *[Symbol.asyncIterator](): AsyncGenerator<QueueEvent | EventGap> {
    const buffer: (QueueEvent | EventGap)[] = [];
    let wake: (() => void) | undefined;
    const push = (item: QueueEvent | EventGap): void => {
      buffer.push(item);
      wake?.();
    };
    const end = (): void => wake?.();
    this.on('event', push);
    this.on('gap', push);
    this.on('closed', end);
    try {
      for (;;) {
        while (buffer.length > 0) yield buffer.shift()!;
        if (this.closed) return;
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      this.off('event', push);
      this.off('gap', push);
      this.off('closed', end);
    }
  }

  /** Stops reading and closes the reader's connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.reader.close();
    await this.loop?.catch(() => undefined);
    this.emit('closed');
  }
}


