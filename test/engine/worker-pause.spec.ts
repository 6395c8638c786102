import { UnknownOptionError, InvalidArgumentError, type ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { commandOf, keysOf } from '../helpers/redis-access.js';
import { nextEvent, waitFor } from '../helpers/wait-for.js';
import { redisOnly } from '../helpers/store-kind.js';

/** A promise and the function that settles it: a handler waits on it. */
function gate(): { readonly open: () => void; readonly wait: Promise<void> } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { open, wait };
}

/** worker.pause() / resume(): one worker stops claiming; the queue and the other workers go on. */
describe('worker pause', () => {
  const h = engineHarness();

  /** The idle worker an add would push its jobs to (lua/includes/push), or null. */
  const pushName = async (queue: string): Promise<string | null> => {
    const value = await commandOf(h.store).sendCommand(['GET', `${keysOf(h.store, queue).idle}:push`]);
    return value === null ? null : String(value).split('|')[0]!;
  };

  it('a paused worker claims nothing while another runs every job; resumed, it claims again', async () => {
    const queue = h.queue('shared');
    const ranBy: Record<string, string[]> = { a: [], b: [] };
    const a = h.worker('shared', async (job) => void ranBy.a!.push(job.name), { pollInterval: 50 });
    const b = h.worker('shared', async (job) => void ranBy.b!.push(job.name), { pollInterval: 50 });
    const events: string[] = [];
    a.on('paused', () => events.push('paused')).on('resumed', () => events.push('resumed'));
    await Promise.all([a.run(), b.run()]);
    await a.pause();
    expect(a.isPaused()).toBe(true);
    expect(b.isPaused()).toBe(false);
    for (let i = 0; i < 20; i++) await queue.add(`p${i}`, i);
    await waitFor(async () => (await queue.getCounts()).completed === 20, { message: '20 jobs done by b' });
    expect(ranBy.a).toEqual([]);
    expect(ranBy.b).toHaveLength(20);

    await b.pause();
    await a.resume();
    expect(a.isPaused()).toBe(false);
    for (let i = 0; i < 5; i++) await queue.add(`r${i}`, i);
    await waitFor(() => ranBy.a!.length === 5, { message: 'a runs the new jobs once resumed' });
    expect(ranBy.b).toHaveLength(20);
    expect(events).toEqual(['paused', 'resumed']);
  });

  it('pause() resolves once the running job finished; with doNotWaitActive at once, the job still completing', async () => {
    const queue = h.queue('finishing');
    const running = gate();
    const worker = h.worker('finishing', async () => {
      await running.wait;
      return 'done';
    });
    const started = nextEvent<[ActiveJob]>(worker, 'active');
    const job = await queue.add('x', {});
    await started;

    let paused = false;
    const pausing = worker.pause().then(() => (paused = true));
    // doNotWaitActive: resolves with the job still running.
    await worker.pause({ doNotWaitActive: true });
    expect(paused).toBe(false);
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'active' });
    running.open();
    await pausing;
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'completed', result: 'done' });
  });

  it('jobs held in reserve go back to waiting at once, not at their lease expiry, and another worker runs them', async () => {
    const queue = h.queue('reserve');
    const blocker = gate();
    const ran: string[] = [];
    await queue.addBulk([...Array.from({ length: 3 }, (_, i) => ({ name: 'quick', data: i })), { name: 'block', data: 0 }, ...Array.from({ length: 6 }, (_, i) => ({ name: 'later', data: i }))]);
    // A fixed reserve: each completion claims up to 4 jobs beyond the running one.
    const first = h.worker('reserve', async (job) => {
      ran.push(job.name);
      if (job.name === 'block') await blocker.wait;
    }, { prefetch: 4, lockDuration: 60_000 });
    await waitFor(() => ran.includes('block'), { message: 'the blocking job started' });
    await waitFor(async () => (await queue.getCounts()).active > 1, { message: 'jobs leased into the reserve behind the blocking one' });

    await first.pause({ doNotWaitActive: true });
    // Only the running job is still leased: the reserve went back well inside its 60 s lease.
    expect((await queue.getCounts()).active).toBe(1);
    const second: string[] = [];
    h.worker('reserve', async (job) => void second.push(job.name));
    await waitFor(() => second.length === 6, { message: 'the other worker ran the reserve' });
    expect(ran.filter((n) => n === 'later')).toEqual([]);
    blocker.open();
    await waitFor(async () => (await queue.getCounts()).completed === 10, { message: 'all 10 done' });
    // Handed back, not failed or stalled: no attempt spent on the paused worker.
    for (const job of await queue.getJobs('completed')) expect([job.attempt, job.stalled]).toEqual([1, 0]);
  });

  redisOnly('reads the push-name key of lua/includes/push')('drops its push name, so adds leave new jobs waiting instead of leasing them to it', async () => {
    const queue = h.queue('unnamed');
    const ran: unknown[] = [];
    const worker = h.worker('unnamed', async (job) => void ran.push(job.data), { pollInterval: 600_000 });
    await worker.run();
    await waitFor(async () => (await pushName('unnamed')) === worker.id, { message: 'the idle worker named for pushes' });
    await worker.pause();
    expect(await pushName('unnamed')).toBeNull();
    const job = await queue.add('x', 'kept');
    expect(await queue.getJob(job.id)).toMatchObject({ state: 'waiting', attempt: 0 });
    await worker.resume();
    await waitFor(() => ran.length === 1, { message: 'the resumed worker runs the job' });
    await waitFor(async () => (await pushName('unnamed')) === worker.id, { message: 'named again once its claim ran dry' });
  });

  it('paused before run(), it claims nothing until resumed; close() while paused still closes', async () => {
    const queue = h.queue('early');
    await queue.add('x', 1);
    const ran: unknown[] = [];
    const worker = h.worker('early', async (job) => void ran.push(job.data), { autorun: false });
    await worker.pause();
    await worker.run();
    expect((await queue.getCounts()).waiting).toBe(1);
    await worker.resume();
    await waitFor(() => ran.length === 1, { message: 'the job ran once resumed' });
    const idle = h.worker('early', async () => undefined);
    await idle.pause();
    await idle.close();
    expect(idle.isRunning).toBe(false);
  });

  it('refuses unknown pause options with a did-you-mean', async () => {
    const worker = h.worker('picky', async () => undefined);
    await expect(worker.pause({ doNotWait: true } as never)).rejects.toThrow(UnknownOptionError);
    await expect(worker.pause({ doNotWait: true } as never)).rejects.toThrow(/doNotWaitActive/);
    await expect(worker.pause('yes' as never)).rejects.toThrow(InvalidArgumentError);
    expect(worker.isPaused()).toBe(false);
  });
});
