import { QueueEvents, type QueueEvent } from '../../lib/index.js';
import { expandEntries } from '../../lib/store/event-rows.js';
import type { StoredEvent } from '../../lib/store/operations.js';
import { engineHarness } from '../helpers/harness.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { waitFor } from '../helpers/wait-for.js';
import { redisOnly } from '../helpers/store-kind.js';

/**
 * maxLen counts events, not stream entries. One script call that moves many
 * jobs writes their events as one entry (lua/includes/events): a bulk add of
 * 1,000 jobs once left 1,000 events in a stream of maxLen 100, and a stream
 * of such entries kept maxLen entries of them.
 */
describe('the event stream keeps about maxLen events, however many one call writes', () => {
  const h = engineHarness({ pollInterval: 50 });
  const readers: QueueEvents[] = [];
  afterEach(async () => {
    await Promise.all(readers.splice(0).map((r) => r.close()));
  });

  /** The stream as a reader decodes it, and what the trim remembers of it (meta evx, the rows list). */
  async function stream(queue: string): Promise<{ events: StoredEvent[]; entries: number; evx: number; rows: string[]; multi: string[] }> {
    const redis = commandOf(h.store);
    const keys = keysOf(h.store, queue);
    const raw = (await redis.sendCommand(['XRANGE', keys.events, '-', '+'])) as [string, string[]][];
    const entries = raw.map(([id, flat]) => {
      const fields: Record<string, string> = {};
      for (let i = 0; i < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
      return { id, fields };
    });
    const events = expandEntries(entries, undefined);
    // Entries of several events, as the rows list records them: "<id> <events - 1>".
    const multi = entries.filter((e) => e.fields.rows !== undefined).map((e) => `${e.id} ${(JSON.parse(e.fields.rows!) as unknown[]).length - 1}`);
    const evx = Number((await redis.sendCommand(['HGET', keys.meta, 'evx'])) ?? 0);
    const rows = (await redis.sendCommand(['LRANGE', keys.eventRows, '0', '-1'])) as string[];
    return { events, entries: entries.length, evx, rows, multi };
  }

  /** The rows list and evx describe the stream's multi-event entries (the list may still name ones already trimmed, oldest first). */
  function consistent(s: Awaited<ReturnType<typeof stream>>): void {
    expect(s.rows.slice(s.rows.length - s.multi.length)).toEqual(s.multi);
    const remembered = s.rows.reduce((sum, row) => sum + Number(row.split(' ')[1]), 0);
    expect(s.evx).toBe(remembered);
  }

  function reader(queue: string): { got: QueueEvent[] } {
    const events = new QueueEvents(queue, { store: h.store, blockMs: 200, from: '0' });
    readers.push(events);
    const got: QueueEvent[] = [];
    events.on('event', (e) => got.push(e));
    return { got };
  }

  redisOnly('reads the Redis stream, its rows list and evx')('bulks of 1,000 with maxLen 100 keep the newest 100 events, and a reader gets exactly those', async () => {
    const queue = h.queue<number>('bulk');
    await queue.configure({ events: { maxLen: 100 } });
    let last: string[] = [];
    for (let b = 0; b < 3; b++) {
      last = (await queue.addBulk(Array.from({ length: 1000 }, (_, j) => ({ name: 'n', data: j })))).map((job) => job.id);
    }
    const s = await stream('bulk');
    expect(s.events).toHaveLength(100);
    expect(s.events.map((e) => e.fields.jobId)).toEqual(last.slice(900));
    consistent(s);
    const { got } = reader('bulk');
    await waitFor(() => got.length === 100, { message: 'the 100 retained events' });
    expect(got.map((e) => e.event === 'added' && e.jobId)).toEqual(last.slice(900));
  });

  redisOnly('reads the Redis stream, its rows list and evx')('a bulk after single events trims the single ones to make room: maxLen events in all', async () => {
    const queue = h.queue<number>('mixed');
    await queue.configure({ events: { maxLen: 100 } });
    await queue.addBulk(Array.from({ length: 1000 }, (_, j) => ({ name: 'n', data: j })));
    for (let i = 0; i < 150; i++) await queue.add('one', i);
    // Single events trim by entries (one XADD each): past maxLen by at most the node Redis trims whole.
    const between = await stream('mixed');
    expect(between.events.length).toBeLessThanOrEqual(300);
    const bulk = await queue.addBulk(Array.from({ length: 10 }, (_, j) => ({ name: 'n', data: j })));
    const s = await stream('mixed');
    expect(s.events).toHaveLength(100);
    expect(s.events.slice(90).map((e) => e.fields.jobId)).toEqual(bulk.map((job) => job.id));
    expect(s.events.slice(0, 90).every((e) => e.fields.name === 'one')).toBe(true);
    consistent(s);
  });

  redisOnly('reads the Redis stream, its rows list and evx')('batched claims and completions of 1,000 jobs (and a purge) leave about maxLen events, every one readable', async () => {
    const queue = h.queue<number>('batched');
    await queue.configure({ events: { maxLen: 100 } });
    await queue.addBulk(Array.from({ length: 1000 }, (_, j) => ({ name: 'n', data: j })));
    let done = 0;
    h.worker<number>('batched', async () => void (done += 1), { concurrency: 100 });
    await waitFor(async () => (await queue.getCounts()).completed === 1000, { message: '1,000 completed', timeout: 20_000 });
    const s = await stream('batched');
    expect(done).toBe(1000);
    // Multi-event entries were written (claims and completions of many jobs per call) and trimmed as events.
    expect(s.rows.length).toBeGreaterThan(0);
    expect(s.events.length).toBeGreaterThanOrEqual(50);
    expect(s.events.length).toBeLessThanOrEqual(200);
    consistent(s);
    const { got } = reader('batched');
    await waitFor(() => got.length === s.events.length, { message: 'every retained event read' });
    expect(got.map((e) => `${e.event} ${'jobId' in e ? e.jobId : ''}`)).toEqual(s.events.map((e) => `${e.fields.event} ${e.fields.jobId ?? ''}`));

    expect(await queue.purge('completed')).toBe(1000);
    const purged = await stream('batched');
    expect(purged.events.length).toBeLessThanOrEqual(200);
    expect(purged.events.slice(-1)[0]?.fields.event).toBe('removed');
  });
});
