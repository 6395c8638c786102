import { createClient } from 'redis';
import { InvalidArgumentError, QueueEvents, UnrecoverableError, type QueueEvent, type EventGap } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { redisUrl } from '../helpers/store.js';
import { compareIds } from '../../lib/engine/queue-events-types.js';
import { waitFor } from '../helpers/wait-for.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { redisOnly, storeKind } from '../helpers/store-kind.js';

describe('queue events: a stream written by the transition scripts, read by QueueEvents', () => {
  const h = engineHarness({ pollInterval: 50 });
  const readers: QueueEvents[] = [];
  afterEach(async () => {
    await Promise.all(readers.splice(0).map((r) => r.close()));
  });

  function events(queue: string, from?: string): { reader: QueueEvents; got: QueueEvent[]; gaps: EventGap[] } {
    const reader = new QueueEvents(queue, { store: h.store, blockMs: 200, ...(from && { from }) });
    readers.push(reader);
    const got: QueueEvent[] = [];
    const gaps: EventGap[] = [];
    reader.on('event', (e) => got.push(e));
    reader.on('gap', (g) => gaps.push(g));
    return { reader, got, gaps };
  }

  const of = (got: QueueEvent[], jobId: string) => got.filter((e) => 'jobId' in e && e.jobId === jobId).map((e) => e.event);

  it('tells a job life: added, active, progress, completed with the result size; retries and dead letters', async () => {
    const { reader, got } = events('life');
    await reader.ready();
    const queue = h.queue<string, string>('life');
    h.worker<string, string>('life', async (job) => {
      if (job.data === 'fail') throw new UnrecoverableError('no way');
      if (job.data === 'retry' && job.attempt === 1) throw new Error('once');
      await job.updateProgress({ pct: 50 });
      return 'abcd';
    });
    const ok = await queue.add('work', 'ok');
    const dead = await queue.add('work', 'fail');
    const retried = await queue.add('work', 'retry', { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
    await waitFor(() => of(got, retried.id).includes('completed') && of(got, ok.id).includes('completed') && of(got, dead.id).includes('failed'), { message: 'the three jobs finished' });
    expect(of(got, ok.id)).toEqual(['added', 'active', 'progress', 'completed']);
    expect(got.find((e) => e.event === 'completed' && e.jobId === ok.id)).toMatchObject({ size: 6 });
    expect(got.find((e) => e.event === 'progress' && e.jobId === ok.id)).toMatchObject({ progress: { pct: 50 } });
    expect(got.find((e) => e.event === 'added' && e.jobId === ok.id)).toMatchObject({ name: 'work', state: 'waiting' });
    expect(of(got, dead.id)).toEqual(['added', 'active', 'failed']);
    expect(got.find((e) => e.event === 'failed' && e.jobId === dead.id)).toMatchObject({ next: 'dead', reason: 'unrecoverable', message: 'no way' });
    expect(of(got, retried.id)).toEqual(['added', 'active', 'failed', 'delayed', 'active', 'progress', 'completed']);
    expect(got.find((e) => e.event === 'failed' && e.jobId === retried.id)).toMatchObject({ next: 'retry', delay: 50 });
    const ids = got.map((e) => e.id);
    expect([...ids].sort()).toEqual(ids);
  });

  it('tells operator moves: paused, resumed, delayed, cancelled, removed, redriven', async () => {
    const { reader, got } = events('ops');
    await reader.ready();
    const queue = h.queue<number>('ops');
    await queue.pause();
    await queue.resume();
    await queue.pause({ names: ['x'] });
    await queue.resume({ names: ['x'] });
    const later = await queue.add('x', 1, { delay: 60_000 });
    await queue.cancel(later.id);
    await queue.remove(later.id);
    const dead = await queue.add('y', 2, { deadline: Date.now() + 1 });
    await waitFor(() => Date.now() > dead.deadline! + 5, { message: 'the deadline to pass' });
    await h.store.claim('ops', { count: 1, workerId: 'w', lockMs: 1000 });
    await queue.redrive(dead.id);
    await waitFor(() => got.length >= 11, { message: 'eleven events' });
    expect(got.map((e) => e.event)).toEqual(['paused', 'resumed', 'paused', 'resumed', 'added', 'delayed', 'cancelled', 'removed', 'added', 'failed', 'redriven']);
    expect(got[2]).toMatchObject({ event: 'paused', name: 'x' });
    expect(got[5]).toMatchObject({ event: 'delayed', jobId: later.id, delay: 60_000 });
    expect(got[9]).toMatchObject({ event: 'failed', jobId: dead.id, next: 'dead', reason: 'deadline' });
    expect(got[10]).toMatchObject({ event: 'redriven', jobId: dead.id, state: 'waiting' });
  });

  redisOnly('reads the Redis stream with EXISTS/XLEN')('events: false in the queue settings writes nothing; maxLen keeps the stream near its length', async () => {
    const queue = h.queue<number>('quiet');
    await queue.configure({ events: false });
    expect(await queue.getLimits()).toMatchObject({ events: false });
    await queue.addBulk(Array.from({ length: 50 }, (_, i) => ({ name: 'n', data: i })));
    const key = keysOf(h.store, 'quiet').events;
    expect(await commandOf(h.store, 'test').sendCommand(['EXISTS', key])).toBe(0);
    await queue.configure({ events: { maxLen: 100 } });
    // maxLen counts stream entries: one per add call here (a bulk's events share one entry).
    for (let i = 0; i < 1000; i++) await queue.add('n', i);
    const len = Number(await commandOf(h.store, 'test').sendCommand(['XLEN', key]));
    expect(len).toBeGreaterThanOrEqual(100);
    expect(len).toBeLessThan(300);
    await queue.configure({ events: null });
    expect(await queue.getLimits()).not.toHaveProperty('events');
    await expect(queue.configure({ events: { maxLen: 0 } })).rejects.toThrow(InvalidArgumentError);
  });

  it('every reader gets every event, and the async iterator yields them in order', async () => {
    const a = events('fan');
    const b = events('fan');
    await Promise.all([a.reader.ready(), b.reader.ready()]);
    const queue = h.queue<number>('fan');
    const iterated: string[] = [];
    const iterating = (async () => {
      for await (const e of a.reader) {
        if (e.event === 'added') iterated.push(e.jobId);
        if (iterated.length === 20) return;
      }
    })();
    const added = await queue.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'n', data: i })));
    await waitFor(() => a.got.length === 20 && b.got.length === 20, { message: 'both readers got 20 events' });
    await iterating;
    expect(b.got.map((e) => e.id)).toEqual(a.got.map((e) => e.id));
    expect(iterated).toEqual(added.map((j) => j.id));
  });

  redisOnly('kills the reader\'s Redis connection by its client name')('resumes after its connection is killed, from the last id delivered: nothing lost, nothing twice', async () => {
    const { reader, got } = events('drop');
    await reader.ready();
    const queue = h.queue<number>('drop');
    await queue.add('n', 0);
    await waitFor(() => got.length === 1, { message: 'first event' });
    const admin = createClient({ url: redisUrl() });
    await admin.connect();
    try {
      const list = String(await admin.sendCommand(['CLIENT', 'LIST']));
      const line = list.split('\n').find((l) => l.includes(`name=spool-events:${keysOf(h.store, 'drop').events}`));
      expect(line).toBeDefined();
      const id = /\bid=(\d+)/.exec(line!)![1]!;
      await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]);
    } finally {
      await admin.close();
    }
    await queue.addBulk(Array.from({ length: 30 }, (_, i) => ({ name: 'n', data: i + 1 })));
    await waitFor(() => got.length >= 31, { message: 'the events added while reconnecting', timeout: 10_000 });
    expect(got).toHaveLength(31);
    expect(new Set(got.map((e) => e.id)).size).toBe(31);
  });


  it('a call for several jobs: readers get one event per job, in order, with ids of their own (on Redis, written as one entry)', async () => {
    const { reader, got } = events('rows');
    await reader.ready();
    const queue = h.queue<number>('rows');
    const added = await queue.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: 'n', data: i })));
    h.worker<number>('rows', async () => undefined, { concurrency: 10 });
    await waitFor(() => got.filter((e) => e.event === 'completed').length === 40, { message: 'forty completed events' });
    const ids = added.map((j) => j.id);
    for (const name of ['added', 'active', 'completed'] as const) {
      const mine = got.filter((e) => e.event === name).map((e) => ('jobId' in e ? e.jobId : ''));
      expect(mine.sort()).toEqual([...ids].sort());
    }
    expect(got.filter((e) => e.event === 'added').map((e) => ('jobId' in e ? e.jobId : ''))).toEqual(ids);
    expect(got.find((e) => e.event === 'added')).toMatchObject({ name: 'n', state: 'waiting' });
    // What a reader sees on either store: one id per event, each after the one before.
    expect(new Set(got.map((e) => e.id)).size).toBe(got.length);
    expect(got.every((e, i) => i === 0 || compareIds(e.id, got[i - 1]!.id) > 0)).toBe(true);
    // How Redis stores it (a PostgreSQL events table has a row per event, no shared entry to check).
    if (storeKind() !== 'redis') return;
    expect(got.find((e) => e.event === 'added')!.id).toMatch(/^\d+-\d+#0$/);
    // Fewer entries than events: the bulk's 40 added events are one entry, the worker's batches share entries too.
    const entries = Number(await commandOf(h.store, 'test').sendCommand(['XLEN', keysOf(h.store, 'rows').events]));
    expect(entries).toBeLessThan(got.length);
    // The bulk's entry: name and state, the same for every job, are written once; the rows hold the ids.
    const [first] = (await commandOf(h.store, 'test').sendCommand(['XRANGE', keysOf(h.store, 'rows').events, '-', '+', 'COUNT', '1'])) as [string, string[]][];
    const fields = first![1];
    expect(fields.filter((f, i) => i % 2 === 0).sort()).toEqual(['event', 'fields', 'name', 'rows', 'state']);
    expect(fields[fields.indexOf('fields') + 1]).toBe('jobId');
    expect(JSON.parse(fields[fields.indexOf('rows') + 1]!)).toEqual(ids.map((id) => [id]));
  });

  it('rows carry ids that JSON must escape (quotes, backslashes, control characters, slashes) exactly', async () => {
    const { reader, got } = events('escape');
    await reader.ready();
    const queue = h.queue<number>('escape');
    // One kind per bulk: each bulk is one stream entry whose rows JSON holds the ids.
    const bulks = [['say "hi"', 'q-2'], ['back\\slash', 'b-2'], ['tab\tand\nline', 't-2'], ['a/b', 'plain-2']];
    for (const bulk of bulks) await queue.addBulk(bulk.map((jobId, i) => ({ name: 'n', data: i, opts: { jobId } })));
    const ids = bulks.flat();
    await waitFor(() => got.filter((e) => e.event === 'added').length === ids.length, { message: 'every added event' });
    expect(got.filter((e) => e.event === 'added').map((e) => ('jobId' in e ? e.jobId : ''))).toEqual(ids);
  });

  it('maxLen bounds events, not entries: bulk entries of 100 events keep the stream near maxLen events', async () => {
    const queue = h.queue<number>('bulkcap');
    await queue.configure({ events: { maxLen: 200 } });
    for (let i = 0; i < 10; i++) await queue.addBulk(Array.from({ length: 100 }, (_, j) => ({ name: 'n', data: j })));
    const all = events('bulkcap', '0');
    await waitFor(() => all.got.length >= 100, { message: 'the retained events' });
    await all.reader.ready();
    // Read until a block returns nothing new: what the stream retains.
    let seen = -1;
    await waitFor(async () => {
      const was = seen;
      seen = all.got.length;
      await new Promise((resolve) => setTimeout(resolve, 300));
      return was === all.got.length;
    }, { message: 'the reader caught up' });
    expect(all.got.length).toBeGreaterThanOrEqual(100);
    expect(all.got.length).toBeLessThanOrEqual(400);
  });

  it('resumes inside an entry written for several jobs: from its k-th event, the rest of it and what follows, once', async () => {
    const queue = h.queue<number>('inside');
    const added = await queue.addBulk(Array.from({ length: 5 }, (_, i) => ({ name: 'n', data: i })));
    const all = events('inside', '0');
    await waitFor(() => all.got.length === 5, { message: 'the five added events' });
    const third = all.got[2]!;
    // On Redis the five share one stream entry and the third is its row #2; on PostgreSQL each is a row of its own.
    if (storeKind() === 'redis') expect(third.id).toMatch(/#2$/);
    const rest = events('inside', third.id);
    await waitFor(() => rest.got.length === 2, { message: 'the two events after the third' });
    expect(rest.got.map((e) => e.id)).toEqual(all.got.slice(3).map((e) => e.id));
    expect(rest.got.map((e) => ('jobId' in e ? e.jobId : ''))).toEqual(added.slice(3).map((j) => j.id));
    // From the entry's last row: nothing of it again; the next entry's event comes next, once.
    const after = events('inside', all.got[4]!.id);
    await after.reader.ready();
    const next = await queue.add('n', 5);
    await waitFor(() => after.got.length === 1 && rest.got.length === 3, { message: 'the next add, to both readers' });
    expect(after.got[0]).toMatchObject({ event: 'added', jobId: next.id });
    expect(after.reader.lastId).toBe(after.got[0]!.id);
  });
  it('emits gap with the ids when the stream was trimmed past the last id delivered', async () => {
    const queue = h.queue<number>('trim');
    await queue.configure({ events: { maxLen: 10 } });
    await queue.add('n', 0);
    const first = events('trim', '0');
    await waitFor(() => first.got.length === 1, { message: 'first event' });
    const last = first.reader.lastId;
    await first.reader.close();
    for (let i = 0; i < 20; i++) await queue.addBulk(Array.from({ length: 50 }, (_, j) => ({ name: 'n', data: j })));
    const again = events('trim', last);
    await waitFor(() => again.gaps.length === 1 && again.got.length > 0, { message: 'a gap, then events' });
    // resumedAt is the first retained entry: the first event delivered is that entry's (or its first row, entry#0).
    expect(again.gaps[0]).toMatchObject({ event: 'gap', after: last, resumedAt: again.got[0]!.id.split('#')[0] });
  });

  it('tells flow nodes as added when the flow commits: parent waiting for children, leaves waiting', async () => {
    const { reader, got } = events('tree');
    await reader.ready();
    const { FlowProducer } = await import('../../lib/index.js');
    const queue = h.queue<number>('tree');
    const flows = new FlowProducer({ store: h.store, queues: [queue] });
    const root = await flows.add({ queueName: 'tree', name: 'parent', data: 0, children: [{ queueName: 'tree', name: 'kid', data: 1 }] });
    await waitFor(() => got.length >= 2, { message: 'two added events' });
    expect(got.map((e) => e.event === 'added' && `${e.name} ${e.state}`).sort()).toEqual(['kid waiting', 'parent waiting-children']);
    expect(got.some((e) => 'jobId' in e && e.jobId === root.job.id)).toBe(true);
  });

  it('refuses bad options', () => {
    expect(() => new QueueEvents('q', { store: h.store, from: 'yesterday' })).toThrow(/from/);
    expect(() => new QueueEvents('q', { store: h.store, form: '$' } as never)).toThrow(/did you mean "from"/);
    expect(() => new QueueEvents('bad name', { store: h.store })).toThrow(InvalidArgumentError);
  });
});
