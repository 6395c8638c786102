import { waitFor } from '../helpers/wait-for.js';
import type { ContractEnv } from './contract.js';

/** Groups, rate limits, backpressure, pause, name caps. */
export function limitCases(env: ContractEnv): void {
  const { queue, worker } = env;
  describe('groups', () => {
    it('a group cap holds one tenant back without starving the others (round-robin)', async () => {
      const q = queue('groups');
      await q.configure({ groupConcurrency: 1 });
      for (let i = 0; i < 3; i++) await q.add(`a${i}`, {}, { group: { id: 'A' } });
      await q.add('b0', {}, { group: { id: 'B' } });
      await q.add('c0', {}, { group: { id: 'C' } });
      const claimed = await env.store().claim('groups', { count: 10, workerId: 'w', lockMs: 5000 });
      expect(claimed.jobs.map((j: { name: string }) => j.name).sort()).toEqual(['a0', 'b0', 'c0']);
      expect(await q.getGroup('A')).toMatchObject({ waiting: 2, active: 1 });
      const a0 = claimed.jobs.find((j) => j.name === 'a0')!;
      const next = await env.store().complete('groups', { id: a0.id, token: a0.token! }, 'null', { count: 5, workerId: 'w', lockMs: 5000 });
      expect(next.next.map((j: { name: string }) => j.name)).toEqual(['a1']);
      for (const j of [...claimed.jobs.filter((j) => j !== a0), ...next.next]) {
        await env.store().complete('groups', { id: j.id, token: j.token! }, 'null', { count: 0, workerId: 'w', lockMs: 5000 });
      }
    });

    it('a paused group starts nothing until resumed; others go on', async () => {
      const q = queue('gpause');
      await q.pauseGroup('A');
      await q.add('a', {}, { group: { id: 'A' } });
      await q.add('b', {}, { group: { id: 'B' } });
      const order: string[] = [];
      worker('gpause', async (job) => void order.push(job.name));
      await waitFor(() => order.length === 1);
      expect(order).toEqual(['b']);
      await q.resumeGroup('A');
      await waitFor(() => order.length === 2);
    });

    it('maxWaitingPerGroup refuses a full group with QueueFullError', async () => {
      const q = queue('gfull');
      await q.configure({ maxWaitingPerGroup: 1 });
      await q.add('a', {}, { group: { id: 'A' } });
      await expect(q.add('a', {}, { group: { id: 'A' } })).rejects.toMatchObject({ name: 'QueueFullError' });
      await q.add('b', {}, { group: { id: 'B' } });
    });
  });

  describe('global concurrency', () => {
    it('a claim takes at most the cap less the active jobs, whoever holds them; a freed slot is claimable again', async () => {
      const q = queue('capped');
      await q.setGlobalConcurrency(3);
      await q.addBulk(Array.from({ length: 6 }, (_, i) => ({ name: 'n', data: i, opts: i % 2 ? { group: { id: 'g' } } : {} })));
      const fetch = { count: 10, lockMs: 5000 };
      const first = await env.store().claim('capped', { ...fetch, workerId: 'a' });
      expect(first.jobs).toHaveLength(3);
      expect((await env.store().claim('capped', { ...fetch, workerId: 'b' })).jobs).toHaveLength(0);
      const held = first.jobs[0]!;
      // complete() claims next in the same call: it takes the slot it frees, and no more.
      const done = await env.store().complete('capped', { id: held.id, token: held.token! }, '1', { ...fetch, workerId: 'a' });
      expect(done.next).toHaveLength(1);
      expect((await q.getCounts()).active).toBe(3);
      await q.removeGlobalConcurrency();
      expect((await env.store().claim('capped', { ...fetch, workerId: 'b' })).jobs).toHaveLength(2);
      expect(await q.getLimits()).toMatchObject({ concurrency: null });
      await expect(q.configure({ concurency: 2 } as never)).rejects.toThrow(/did you mean "concurrency"/);
    });
  });

  describe('rate limits and backpressure', () => {
    it('a queue rate limit admits max starts per window and says how long to wait', async () => {
      const q = queue('rate');
      await q.configure({ rateLimit: { max: 2, duration: 1000 } });
      for (let i = 0; i < 3; i++) await q.add(`j${i}`, {});
      const first = await env.store().claim('rate', { count: 10, workerId: 'w', lockMs: 5000 });
      expect(first.jobs).toHaveLength(2);
      expect(first.waitMs).toBeGreaterThan(900);
      const second = await env.store().claim('rate', { count: 10, workerId: 'w', lockMs: 5000 });
      expect(second.jobs).toHaveLength(0);
      expect(second.waitMs).toBeGreaterThan(900);
      expect(second.waitMs).toBeLessThanOrEqual(1000);
      expect(await q.getLimits()).toMatchObject({ rateLimit: { max: 2, duration: 1000 } });
      for (const j of first.jobs) await env.store().complete('rate', { id: j.id, token: j.token! }, 'null', { count: 0, workerId: 'w', lockMs: 5000 });
      await q.cancel((await q.getJobs('waiting'))[0]!.id);
    });

    it('maxWaiting refuses a batch whole', async () => {
      const q = queue('full');
      await q.configure({ maxWaiting: 2 });
      await q.add('a', {});
      await expect(q.addBulk([{ name: 'b', data: {} }, { name: 'c', data: {} }])).rejects.toMatchObject({ name: 'QueueFullError', limit: 2 });
      expect((await q.getCounts()).waiting).toBe(1);
    });
  });

  describe('pause', () => {
    it('a paused queue starts nothing; its waiting jobs count as paused until resumed', async () => {
      const q = queue('pause');
      await q.pause();
      await q.add('x', {});
      expect(await q.getCounts()).toMatchObject({ waiting: 0, paused: 1 });
      const ran: string[] = [];
      worker('pause', async (job) => void ran.push(job.name));
      expect((await env.store().claim('pause', { count: 1, workerId: 'p', lockMs: 1000 })).jobs).toEqual([]);
      await q.resume();
      await waitFor(() => ran.length === 1);
    });

    it('a paused job name is parked and comes back in order when resumed', async () => {
      const q = queue('pnames');
      await q.pause({ names: ['report'] });
      await q.add('report', { n: 1 });
      await q.add('mail', {});
      await q.add('report', { n: 2 });
      expect(await q.getCounts()).toMatchObject({ waiting: 1, paused: 2 });
      const ran: string[] = [];
      worker('pnames', async (job) => void ran.push(`${job.name}${(job.data as { n?: number }).n ?? ''}`), { concurrency: 1 });
      await waitFor(() => ran.length === 1);
      await q.resume({ names: ['report'] });
      await waitFor(() => ran.length === 3);
      expect(ran).toEqual(['mail', 'report1', 'report2']);
    });
  });

  describe('name caps', () => {
    it('nameConcurrency caps one job name in a worker while others run', async () => {
      const q = queue('caps');
      let running = 0;
      let most = 0;
      const done: string[] = [];
      worker('caps', async (job) => {
        if (job.name === 'heavy') {
          running += 1;
          most = Math.max(most, running);
          await new Promise((r) => setTimeout(r, 30));
          running -= 1;
        }
        done.push(job.name);
      }, { concurrency: 4, nameConcurrency: { heavy: 1 } });
      await q.addBulk([...Array(4)].map(() => ({ name: 'heavy', data: {} })).concat([{ name: 'light', data: {} }]));
      await waitFor(() => done.length === 5);
      expect(most).toBe(1);
    });
  });

  describe('group limits', () => {
    const fetch = { count: 10, workerId: 'w', lockMs: 5000 };

    it("a group rate limit spaces one tenant's starts while others go on", async () => {
      const q = queue('grate');
      const s = env.store();
      await q.configure({ groupRateLimit: { max: 1, duration: 1000 } });
      await q.add('a1', {}, { group: { id: 'A' } });
      const a2 = await q.add('a2', {}, { group: { id: 'A' } });
      await q.add('b1', {}, { group: { id: 'B' } });
      const first = await s.claim('grate', fetch);
      expect(first.jobs.map((j: { name: string }) => j.name).sort()).toEqual(['a1', 'b1']);
      expect(first.waitMs).toBeGreaterThan(900);
      const second = await s.claim('grate', fetch);
      expect(second.jobs).toEqual([]);
      expect(second.waitMs).toBeGreaterThan(900);
      for (const j of first.jobs) await s.complete('grate', { id: j.id, token: j.token! }, 'null', { ...fetch, count: 0 });
      expect((await s.claim('grate', fetch)).jobs).toEqual([]);
      expect(await q.getGroup('A')).toMatchObject({ waiting: 1, active: 0 });
      expect(await q.cancel(a2.id)).toBe('cancelled');
    });

    it('setGroupLimits overrides the default cap for one group, and getGroup reports it', async () => {
      const q = queue('gcap');
      const s = env.store();
      await q.configure({ groupConcurrency: 1 });
      await q.setGroupLimits('A', { concurrency: 2 });
      for (let i = 0; i < 3; i++) await q.add(`a${i}`, {}, { group: { id: 'A' } });
      const claimed = await s.claim('gcap', fetch);
      expect(claimed.jobs.map((j: { name: string }) => j.name)).toEqual(['a0', 'a1']);
      expect(await q.getGroup('A')).toEqual({ id: 'A', waiting: 1, active: 2, paused: false, concurrency: 2 });
      for (const j of claimed.jobs) await s.complete('gcap', { id: j.id, token: j.token! }, 'null', { ...fetch, count: 0 });
      const last = await s.claim('gcap', fetch);
      expect(last.jobs.map((j: { name: string }) => j.name)).toEqual(['a2']);
      await s.complete('gcap', { id: last.jobs[0]!.id, token: last.jobs[0]!.token! }, 'null', { ...fetch, count: 0 });
    });

    it("groups and the ungrouped jobs take turns; a paused group's jobs count as paused", async () => {
      const q = queue('turns');
      const s = env.store();
      await q.add('u1', {});
      await q.add('u2', {});
      for (const name of ['a1', 'a2']) await q.add(name, {}, { group: { id: 'A' } });
      for (const name of ['b1', 'b2']) await q.add(name, {}, { group: { id: 'B' } });
      for (const name of ['c1', 'c2']) await q.add(name, {}, { group: { id: 'C' } });
      await q.pauseGroup('C');
      expect(await q.getCounts()).toMatchObject({ waiting: 6, paused: 2 });
      const claimed = await s.claim('turns', fetch);
      // C is still in the ring until a claim reaches it: that turn drops it and serves A, so u1 comes one later.
      expect(claimed.jobs.map((j: { name: string }) => j.name)).toEqual(['a1', 'b1', 'a2', 'u1', 'b2', 'u2']);
      for (const j of claimed.jobs) await s.complete('turns', { id: j.id, token: j.token! }, 'null', { ...fetch, count: 0 });
      await q.resumeGroup('C');
      expect(await q.getCounts()).toMatchObject({ waiting: 2, paused: 0 });
      const rest = await s.claim('turns', fetch);
      for (const j of rest.jobs) await s.complete('turns', { id: j.id, token: j.token! }, 'null', { ...fetch, count: 0 });
      expect(rest.jobs.map((j: { name: string }) => j.name)).toEqual(['c1', 'c2']);
    });
  });
}
