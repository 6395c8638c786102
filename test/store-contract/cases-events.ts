import { FlowProducer, QueueEvents, UnrecoverableError, type EventGap, type QueueEvent } from '../../lib/index.js';
import { compareIds } from '../../lib/engine/queue-events-types.js';
import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

/** The event stream: the events each transition writes, in order, as QueueEvents reads them; trims show as gaps. */
export function eventCases(env: ContractEnv): void {
  const { queue, worker } = env;
  const readers: QueueEvents[] = [];
  afterEach(async () => {
    await Promise.all(readers.splice(0).map((r) => r.close()));
  });

  function events(name: string, from?: string): { reader: QueueEvents; got: QueueEvent[]; gaps: EventGap[] } {
    const reader = new QueueEvents(name, { store: env.store(), blockMs: 200, ...(from && { from }) });
    readers.push(reader);
    const got: QueueEvent[] = [];
    const gaps: EventGap[] = [];
    reader.on('event', (e) => got.push(e));
    reader.on('gap', (g) => gaps.push(g));
    return { reader, got, gaps };
  }

  const of = (got: QueueEvent[], jobId: string) => got.filter((e) => 'jobId' in e && e.jobId === jobId).map((e) => e.event);

  describe('event stream', () => {
    it('tells a job life: added, active, progress, completed; retries and dead letters', async () => {
      const { reader, got } = events('life');
      await reader.ready();
      const q = queue<string, string>('life');
      worker<string, string>('life', async (job) => {
        if (job.data === 'fail') throw new UnrecoverableError('no way');
        if (job.data === 'retry' && job.attempt === 1) throw new Error('once');
        await job.updateProgress({ pct: 50 });
        return 'abcd';
      });
      const ok = await q.add('work', 'ok');
      const dead = await q.add('work', 'fail');
      const retried = await q.add('work', 'retry', { attempts: 2, backoff: { type: 'fixed', delay: 50 } });
      await waitFor(() => of(got, retried.id).includes('completed') && of(got, ok.id).includes('completed') && of(got, dead.id).includes('failed'), { message: 'three jobs finished' });
      expect(of(got, ok.id)).toEqual(['added', 'active', 'progress', 'completed']);
      expect(got.find((e) => e.event === 'completed' && e.jobId === ok.id)).toMatchObject({ size: 6 });
      expect(got.find((e) => e.event === 'progress' && e.jobId === ok.id)).toMatchObject({ progress: { pct: 50 } });
      expect(got.find((e) => e.event === 'added' && e.jobId === ok.id)).toMatchObject({ name: 'work', state: 'waiting' });
      expect(got.find((e) => e.event === 'active' && e.jobId === ok.id)).toMatchObject({ attempt: 1 });
      expect(of(got, dead.id)).toEqual(['added', 'active', 'failed']);
      expect(got.find((e) => e.event === 'failed' && e.jobId === dead.id)).toMatchObject({ next: 'dead', reason: 'unrecoverable', message: 'no way' });
      expect(of(got, retried.id)).toEqual(['added', 'active', 'failed', 'delayed', 'active', 'progress', 'completed']);
      expect(got.find((e) => e.event === 'failed' && e.jobId === retried.id)).toMatchObject({ next: 'retry', reason: 'error', message: 'once', delay: 50 });
      // Ids grow strictly (rows of an entry written for several jobs are "entry#k": compareIds orders them).
      expect(got.every((e, i) => i === 0 || compareIds(e.id, got[i - 1]!.id) > 0)).toBe(true);
    });

    it('tells operator moves: paused, resumed, delayed, cancelled, removed, redriven, stalled', async () => {
      const { reader, got } = events('moves');
      await reader.ready();
      const q = queue<number>('moves');
      const s = env.store();
      const stuck = await q.add('z', 0);
      await s.claim('moves', { count: 1, workerId: 'w', lockMs: 1 });
      const claimedAt = Date.now();
      await waitFor(() => Date.now() > claimedAt + 5, { message: 'the 1 ms lease to expire' });
      await s.reap('moves', 0, 10);
      await q.pause();
      await q.pause();
      await q.resume();
      await q.pause({ names: ['x'] });
      await q.resume({ names: ['x', 'never-paused'] });
      const later = await q.add('x', 1, { delay: 60_000 });
      await q.cancel(later.id);
      await q.remove(later.id);
      const dead = await q.add('y', 2, { deadline: Date.now() + 1 });
      await waitFor(() => Date.now() > dead.deadline! + 5, { message: 'the deadline to pass' });
      await s.claim('moves', { count: 1, workerId: 'w', lockMs: 1000 });
      await q.redrive(dead.id);
      await waitFor(() => got.length >= 15, { message: `fifteen events, got ${got.map((e) => e.event).join(' ')}` });
      expect(got.map((e) => e.event)).toEqual([
        'added', 'active', 'stalled', 'failed', 'paused', 'resumed', 'paused', 'resumed', 'added', 'delayed', 'cancelled', 'removed', 'added', 'failed', 'redriven',
      ]);
      expect(got[2]).toMatchObject({ event: 'stalled', jobId: stuck.id, next: 'dead' });
      expect(got[3]).toMatchObject({ event: 'failed', jobId: stuck.id, next: 'dead', reason: 'stalled' });
      const ops = got.slice(4);
      expect(ops[2]).toMatchObject({ event: 'paused', name: 'x' });
      expect(ops[3]).toMatchObject({ event: 'resumed', name: 'x' });
      expect(ops[5]).toMatchObject({ event: 'delayed', jobId: later.id, delay: 60_000, runAt: later.runAt });
      expect(ops[7]).toMatchObject({ event: 'removed', jobId: later.id, state: 'cancelled' });
      expect(ops[9]).toMatchObject({ event: 'failed', jobId: dead.id, next: 'dead', reason: 'deadline' });
      expect(ops[10]).toMatchObject({ event: 'redriven', jobId: dead.id, state: 'waiting' });
    });

    it('tells flow nodes as added: the parent waiting for children, the leaves waiting', async () => {
      const { reader, got } = events('tree');
      await reader.ready();
      const q = queue<number>('tree');
      const flows = new FlowProducer({ store: env.store(), queues: [q] });
      await flows.add({ queueName: 'tree', name: 'parent', data: 0, children: [{ queueName: 'tree', name: 'kid', data: 1 }] });
      await waitFor(() => got.length >= 2, { message: 'two added events' });
      expect(got.map((e) => e.event === 'added' && `${e.name} ${e.state}`).sort()).toEqual(['kid waiting', 'parent waiting-children']);
    });

    it('every reader gets every event; events: false writes nothing', async () => {
      const q = queue<number>('fan');
      await q.configure({ events: false });
      expect(await q.getLimits()).toMatchObject({ events: false });
      await q.add('quiet', 0);
      await q.configure({ events: null });
      expect(await q.getLimits()).not.toHaveProperty('events');
      const a = events('fan', '0');
      const b = events('fan');
      await Promise.all([a.reader.ready(), b.reader.ready()]);
      const added = await q.addBulk(Array.from({ length: 20 }, (_, i) => ({ name: 'n', data: i })));
      await waitFor(() => a.got.length === 20 && b.got.length === 20, { message: 'both readers got 20 events' });
      expect(b.got.map((e) => e.id)).toEqual(a.got.map((e) => e.id));
      expect(a.got.map((e) => 'jobId' in e && e.jobId)).toEqual(added.map((j) => j.id));
    });

    it('emits gap when the stream was trimmed past the last id delivered, then goes on from the first retained', async () => {
      const q = queue<number>('trim');
      await q.configure({ events: { maxLen: 10 } });
      await q.add('n', 0);
      const first = events('trim', '0');
      await waitFor(() => first.got.length === 1, { message: 'first event' });
      const last = first.reader.lastId;
      await first.reader.close();
      for (let i = 0; i < 20; i++) await q.addBulk(Array.from({ length: 50 }, (_, j) => ({ name: 'n', data: j })));
      const again = events('trim', last);
      await waitFor(() => again.gaps.length === 1 && again.got.length > 0, { message: 'a gap, then events' });
      // resumedAt is the first retained entry: the first event delivered is that entry's (or its first row, entry#0).
      expect(again.gaps[0]).toMatchObject({ event: 'gap', after: last, resumedAt: again.got[0]!.id.split('#')[0] });
      expect(again.got.length).toBeLessThan(1000);
    });
  });
}
