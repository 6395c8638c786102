import type { ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { RedisServer } from '../helpers/redis-server.mjs';
import { waitFor } from '../helpers/wait-for.js';

const until = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('groups', () => {
  const h = engineHarness();


  // Ring [big, small] plus the ungrouped jobs: three members, so the
  // ungrouped job starts within the first three, whenever it was added (issue 11).
  it.each([
    ['added first', true],
    ['added last', false],
  ])('gives ungrouped jobs one turn of the ring (ungrouped job %s)', async (_what, first) => {
    const queue = h.queue('ring-turn');
    if (first) await queue.add('job', 'ungrouped');
    await queue.addBulk(Array.from({ length: 1000 }, (_, i) => ({ name: 'job', data: i, opts: { group: { id: 'big' } } })));
    await queue.add('job', 'small', { group: { id: 'small' } });
    if (!first) await queue.add('job', 'ungrouped');
    const order: string[] = [];
    const worker = h.worker('ring-turn', async (job: ActiveJob) => void order.push(job.group ?? 'none'), { concurrency: 1 });
    await waitFor(() => order.length >= 6, { message: 'six jobs started' });
    await worker.close({ timeout: 0 });
    expect(order.slice(0, 3).sort()).toEqual(['big', 'none', 'small']);
  });

  it('never runs more of a group at once than its cap, with an override for one group', async () => {
    const queue = h.queue('capped');
    await queue.configure({ groupConcurrency: 2 });
    await queue.setGroupLimits('solo', { concurrency: 1 });
    const groups = ['a', 'b', 'c', 'solo'];
    await queue.addBulk(groups.flatMap((g) => Array.from({ length: 12 }, (_, i) => ({ name: 'work', data: i, opts: { group: { id: g } } }))));
    const running = new Map<string, number>();
    const peak = new Map<string, number>();
    const sampled = new Map<string, number>();
    const handler = async (job: ActiveJob<number>) => {
      const g = job.group!;
      running.set(g, (running.get(g) ?? 0) + 1);
      peak.set(g, Math.max(peak.get(g) ?? 0, running.get(g)!));
      await until(15);
      running.set(g, running.get(g)! - 1);
    };
    // Two workers with room for 20 each: only the group caps hold them back.
    h.worker('capped', handler, { concurrency: 20 });
    h.worker('capped', handler, { concurrency: 20 });
    let done = false;
    const sampler = (async () => {
      while (!done) {
        for (const g of groups) {
          const state = await queue.getGroup(g);
          sampled.set(g, Math.max(sampled.get(g) ?? 0, state.active));
        }
        await until(5);
      }
    })();
    await waitFor(async () => (await queue.getCounts()).completed === 48, { timeout: 20_000, message: 'all 48 jobs done' });
    done = true;
    await sampler;
    for (const g of ['a', 'b', 'c']) {
      expect(peak.get(g)).toBe(2);
      expect(sampled.get(g)).toBeLessThanOrEqual(2);
    }
    expect(peak.get('solo')).toBe(1);
    expect(sampled.get('solo')).toBeLessThanOrEqual(1);
    expect(await queue.getGroup('solo')).toMatchObject({ id: 'solo', waiting: 0, active: 0, concurrency: 1 });
  });

  it('keeps priority order inside a group', async () => {
    const queue = h.queue('prio');
    await queue.addBulk([
      { name: 'j', data: 'low', opts: { group: { id: 'g' }, priority: 5 } },
      { name: 'j', data: 'high-1', opts: { group: { id: 'g' }, priority: 1 } },
      { name: 'j', data: 'high-2', opts: { group: { id: 'g' }, priority: 1 } },
    ]);
    const seen: string[] = [];
    h.worker('prio', async (job: ActiveJob<string>) => void seen.push(job.data), { concurrency: 1 });
    await waitFor(() => seen.length === 3, { message: 'three jobs' });
    expect(seen).toEqual(['high-1', 'high-2', 'low']);
  });

  it('pauses and resumes one group while others run', async () => {
    const queue = h.queue('gpause');
    expect(await queue.pauseGroup('held')).toBe(true);
    await queue.addBulk([
      ...Array.from({ length: 5 }, (_, i) => ({ name: 'j', data: `held-${i}`, opts: { group: { id: 'held' } } })),
      ...Array.from({ length: 5 }, (_, i) => ({ name: 'j', data: `free-${i}`, opts: { group: { id: 'free' } } })),
    ]);
    const seen: string[] = [];
    h.worker('gpause', async (job: ActiveJob<string>) => void seen.push(job.data), { concurrency: 3 });
    await waitFor(() => seen.length === 5, { message: 'the free group to finish' });
    expect(seen.every((d) => d.startsWith('free'))).toBe(true);
    expect(await queue.getGroup('held')).toMatchObject({ paused: true, waiting: 5 });
    expect(await queue.resumeGroup('held')).toBe(true);
    await waitFor(() => seen.length === 10, { message: 'the held group after resume' });
    expect(seen.slice(5)).toEqual(['held-0', 'held-1', 'held-2', 'held-3', 'held-4'].filter((d) => seen.slice(5).includes(d)));
    expect(seen.slice(5).sort()).toEqual(['held-0', 'held-1', 'held-2', 'held-3', 'held-4']);
  });

  it('rate-limits a group without slowing the others', async () => {
    const queue = h.queue('grate');
    await queue.setGroupLimits('slow', { rateLimit: { max: 2, duration: 1000 } });
    await queue.addBulk([
      ...Array.from({ length: 6 }, (_, i) => ({ name: 'j', data: i, opts: { group: { id: 'slow' } } })),
      ...Array.from({ length: 30 }, (_, i) => ({ name: 'j', data: i, opts: { group: { id: 'fast' } } })),
    ]);
    const starts: { group: string; at: number }[] = [];
    h.worker('grate', async (job) => void starts.push({ group: job.group!, at: Date.now() }), { concurrency: 5 });
    await waitFor(() => starts.filter((s) => s.group === 'fast').length === 30, { message: 'the fast group' });
    // The fast group finished while the slow one was still inside its first windows.
    expect(starts.filter((s) => s.group === 'slow').length).toBeLessThanOrEqual(4);
    await waitFor(() => starts.length === 36, { timeout: 10_000, message: 'the slow group' });
    const slow = starts.filter((s) => s.group === 'slow').map((s) => s.at);
    // 6 jobs at 2 per second take at least two more windows after the first.
    expect(slow[5]! - slow[0]!).toBeGreaterThanOrEqual(1900);
  });
});

/** 100,000 waiting jobs on a redis-server of this file's own: left behind on the shared one, they would slow every later SCAN walk. */
describe('groups with a 100,000-job backlog', () => {
  let server: RedisServer | undefined;
  beforeAll(async () => {
    server = await RedisServer.start();
  });
  afterAll(async () => {
    await server?.dispose();
  });
  // verify() after the test reads every one of the 100,000 jobs: seconds, more under load.
  const big = engineHarness({}, { url: () => server!.url, hookTimeoutMs: 90_000 });

  it('serves a one-job group within one claim round while another group holds 100,000 jobs', async () => {
    const queue = big.queue('fair');
    for (let i = 0; i < 100_000; i += 10_000) {
      await queue.addBulk(Array.from({ length: 10_000 }, (_, k) => ({ name: 'bulk', data: i + k, opts: { group: { id: 'big' } } })));
    }
    const order: string[] = [];
    let release: (() => void) | undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worker = big.worker(
      'fair',
      async (job: ActiveJob<number | string>) => {
        order.push(job.group!);
        if (job.group === 'big') await gate;
      },
      { concurrency: 4 },
    );
    await waitFor(() => order.length === 4, { message: 'the worker to fill its slots from the big group' });
    await queue.add('small', 'one', { group: { id: 'small' } });
    release!();
    await waitFor(() => order.includes('small'), { timeout: 10_000, message: 'the small group to be served' });
    // After the 4 jobs already running, the small group's job comes within one
    // round of the ring: at most one more job of the big group before it.
    expect(order.indexOf('small')).toBeLessThanOrEqual(4 + 1);
    await worker.close({ timeout: 0 });
    // The backlog stays waiting (the harness verifies the queue after the test).
    expect((await queue.getGroup('big')).waiting).toBeGreaterThan(99_000);
  }, 90_000);
});
