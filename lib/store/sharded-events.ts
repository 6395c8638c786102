import { compareEventIds } from './event-rows.js';
import type { EventReader, StoredEvent, StreamInfo } from './operations.js';

/**
 * One reader over the event streams of every shard of a sharded queue.
 * Each shard keeps its own stream (a script writes only its own slot), so
 * a position is one stream id per shard, written `id0,id1,...`; an entry's
 * id is the position just after it. Entries of one read come out in the
 * order of their stream ids (time), which holds across shards to the
 * millisecond.
 *
 * Blocking reads run on every shard at once, each on a connection of its
 * own; a read still out when another shard answered is kept and its
 * entries delivered by a later call, so nothing is read twice or dropped.
 * info() uses a second set of connections, so it never waits behind a
 * blocking read.
 */
export class ShardedEventReader implements EventReader {
  private readonly pending = new Map<number, { readonly after: string; readonly read: Promise<StoredEvent[]>; settled?: StoredEvent[]; failed?: unknown }>();

  constructor(
    private readonly readers: readonly EventReader[],
    private readonly infos: readonly EventReader[],
  ) {}

  private positions(after: string): string[] {
    if (after === '$' || after === '0' || after === '0-0' || !after.includes(',')) return this.readers.map(() => (after === '0' ? '0-0' : after));
    const parts = after.split(',');
    if (parts.length !== this.readers.length) throw new TypeError(`event position "${after}" names ${parts.length} shards, the queue has ${this.readers.length}`);
    return parts;
  }

  private start(shard: number, after: string, count: number, blockMs: number): void {
    const current = this.pending.get(shard);
    if (current && current.after === after) return;
    const entry: { after: string; read: Promise<StoredEvent[]>; settled?: StoredEvent[]; failed?: unknown } = {
      after,
      read: this.readers[shard]!.read(after, count, blockMs),
    };
    entry.read.then(
      (events) => (entry.settled = events),
      (err: unknown) => (entry.failed = err ?? new Error('event read failed')),
    );
    this.pending.set(shard, entry);
  }

  async read(after: string, count: number, blockMs: number): Promise<StoredEvent[]> {
    const positions = this.positions(after);
    positions.forEach((position, shard) => this.start(shard, position, count, blockMs));
    const reads = [...this.pending.values()].map((p) => p.read.then(() => undefined, () => undefined));
    await Promise.race(reads);
    // Let reads that answered in the same turn settle too.
    await new Promise((resolve) => setImmediate(resolve));
    const merged: { readonly shard: number; readonly event: StoredEvent }[] = [];
    for (const [shard, p] of this.pending) {
      if (p.failed !== undefined) {
        this.pending.delete(shard);
        throw p.failed;
      }
      if (p.settled === undefined) continue;
      this.pending.delete(shard);
      for (const event of p.settled) merged.push({ shard, event });
    }
    merged.sort((a, b) => compareEventIds(a.event.id, b.event.id));
    const at = [...positions];
    return merged.map(({ shard, event }) => {
      at[shard] = event.id;
      return { id: at.join(','), fields: event.fields, ...(event.entryContinues && { entryContinues: true }) };
    });
  }

  async info(): Promise<StreamInfo | null> {
    const all = await Promise.all(this.infos.map((r) => r.info()));
    if (all.every((i) => i === null)) return null;
    const firsts = all.map((i) => i?.first ?? null);
    return {
      first: firsts.every((f) => f === null) ? null : firsts.map((f) => f ?? '0-0').join(','),
      last: all.map((i) => i?.last ?? '0-0').join(','),
      length: all.reduce((n, i) => n + (i?.length ?? 0), 0),
      added: all.reduce((n, i) => n + (i?.added ?? 0), 0),
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.readers, ...this.infos].map((r) => r.close()));
    this.pending.clear();
  }
}

/** A reader whose shards are known only once the placement is read: opened on first use. */
export function lazyReader(open: () => Promise<EventReader>): EventReader {
  let reader: Promise<EventReader> | undefined;
  const get = (): Promise<EventReader> => (reader ??= open());
  return {
    read: async (after, count, blockMs) => (await get()).read(after, count, blockMs),
    info: async () => (await get()).info(),
    close: async () => {
      if (reader) await (await reader).close();
    },
  };
}
