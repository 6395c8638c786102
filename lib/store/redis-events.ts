import type { RedisClientLike } from './redis-client.js';
import { ReplyShapeError } from './errors.js';
import { expandEntries, readFrom } from './event-rows.js';
import type { EventReader, StoredEvent, StreamInfo } from './store.js';

type Raw = string | number | null | Raw[] | { readonly [key: string]: Raw };

/** Field list (RESP2/Lua) or map (RESP3) as a record. */
function record(raw: Raw | undefined): Record<string, Raw> {
  if (Array.isArray(raw)) {
    const out: Record<string, Raw> = {};
    for (let i = 0; i + 1 < raw.length; i += 2) out[String(raw[i])] = raw[i + 1]!;
    return out;
  }
  if (raw && typeof raw === 'object') return { ...raw };
  return {};
}

function entries(raw: Raw | undefined): StoredEvent[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((entry) => {
    if (!Array.isArray(entry) || entry.length !== 2) throw new ReplyShapeError('XREAD', 'expected [id, fields] entries');
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(record(entry[1]))) fields[k] = String(v);
    return { id: String(entry[0]), fields };
  });
}

/**
 * Reads one queue's event stream with blocking XREAD on a connection of its
 * own (a duplicate of the store's, opened on first use): a blocked read must
 * not stall the commands of the store. Entries holding several jobs' events
 * come out as one event per job (event-rows).
 */
export class RedisEventReader implements EventReader {
  private opening: Promise<unknown> | undefined;
  private closed = false;
  private client: RedisClientLike | undefined;

  /** `newClient` is called on the first read, so a reader can be made before its store connects (the Nest module's QueueEvents are). */
  constructor(private readonly newClient: () => RedisClientLike, private readonly key: string) {}

  private clientOf(): RedisClientLike {
    if (this.client) return this.client;
    const client = (this.client = this.newClient());
    // Connection errors surface as rejected reads; the reader retries them.
    client.on('error', () => undefined);
    // Named, so an operator (or a test) can tell this connection in CLIENT LIST.
    client.on('ready', () => {
      client.sendCommand(['CLIENT', 'SETNAME', `spool-events:${this.key.replace(/[^\w:{}.-]/g, '_')}`]).catch(() => undefined);
    });
    return client;
  }

  private async open(): Promise<RedisClientLike> {
    const client = this.clientOf();
    if (!client.isOpen) this.opening ??= client.connect().finally(() => (this.opening = undefined));
    if (this.opening) await this.opening;
    return client;
  }

  /** Events after `after` (an entry id, or `X#k` inside a multi-job entry: see event-rows), one per job. */
  async read(after: string, count: number, blockMs: number): Promise<StoredEvent[]> {
    let { from, skip } = readFrom(after);
    for (;;) {
      const raw = await this.readEntries(from, count, blockMs);
      const events = expandEntries(raw, skip);
      // Only the rest of an entry already delivered came back: read on from it, or a caller would ask for it again at once.
      if (events.length > 0 || raw.length === 0) return events;
      from = raw[raw.length - 1]!.id;
      skip = undefined;
    }
  }

  private async readEntries(after: string, count: number, blockMs: number): Promise<StoredEvent[]> {
    const client = await this.open();
    const reply = (await client.sendCommand(['XREAD', 'COUNT', String(count), 'BLOCK', String(blockMs), 'STREAMS', this.key, after])) as Raw;
    if (reply == null) return [];
    if (Array.isArray(reply)) {
      // RESP2: [[key, entries]]
      const first = reply[0];
      return Array.isArray(first) ? entries(first[1]) : [];
    }
    return entries(record(reply)[this.key]);
  }

  async info(): Promise<StreamInfo | null> {
    const client = await this.open();
    let raw: Raw;
    try {
      raw = (await client.sendCommand(['XINFO', 'STREAM', this.key])) as Raw;
    } catch (err) {
      if (err instanceof Error && /no such key/i.test(err.message)) return null;
      throw err;
    }
    const info = record(raw);
    const first = info['first-entry'];
    return {
      first: Array.isArray(first) && first.length > 0 ? String(first[0]) : null,
      last: String(info['last-generated-id'] ?? '0-0'),
      length: Number(info.length ?? 0),
      added: Number(info['entries-added'] ?? 0),
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A blocked XREAD would hold a graceful close until it times out.
    if (this.client?.isOpen) this.client.destroy();
  }
}
