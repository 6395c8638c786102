import { InvalidArgumentError, UnrecoverableError, Worker } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { logRecorder } from '../helpers/log-recorder.js';
import { waitFor } from '../helpers/wait-for.js';

// Logs a person can act on: a line per dead letter and per retry by default
// (a job its worker abandoned included), and a shutdown that says what it waits for.
describe('worker logs', () => {
  const h = engineHarness();

  it('logs one warning per dead letter (queue, name, id, attempts, reason, message) and a debug line per retry', async () => {
    const rec = logRecorder();
    const queue = h.queue('mails');
    const job = await queue.add('send', {}, { attempts: 3, backoff: 20 });
    const fatal = await queue.add('send', { fatal: true }, { attempts: 3 });
    h.worker<{ fatal?: boolean }>(
      'mails',
      async (j) => {
        if (j.data.fatal) throw new UnrecoverableError('no such mailbox');
        throw new Error('smtp timeout');
      },
      { logger: rec.logger },
    );
    await waitFor(() => rec.at('warn').length === 2, { message: 'two dead-letter warnings' });
    expect(rec.at('warn').sort()).toEqual(
      [
        `job "send" ${job.id} of queue "mails" dead-lettered after attempt 3 of 3 (reason: error): smtp timeout`,
        `job "send" ${fatal.id} of queue "mails" dead-lettered after attempt 1 of 3 (reason: unrecoverable): no such mailbox`,
      ].sort(),
    );
    expect(rec.at('debug')).toEqual([
      `job "send" ${job.id} of queue "mails" failed attempt 1 of 3 (reason: error); retrying in 20 ms: smtp timeout`,
      `job "send" ${job.id} of queue "mails" failed attempt 2 of 3 (reason: error); retrying in 20 ms: smtp timeout`,
    ]);
    expect(rec.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('logFailures: false logs nothing; levels can be changed; bad values are refused', async () => {
    const quiet = logRecorder();
    const loud = logRecorder();
    const a = await h.queue('quiet').add('x', {});
    const b = await h.queue('loud').add('x', {});
    h.worker('quiet', async () => { throw new Error('nope'); }, { logger: quiet.logger, logFailures: false });
    h.worker('loud', async () => { throw new Error('nope'); }, { logger: loud.logger, logFailures: { dead: 'error', retry: false } });
    await expect(h.queue('quiet').waitFor(a.id, { timeout: 5000 })).rejects.toThrow('nope');
    await expect(h.queue('loud').waitFor(b.id, { timeout: 5000 })).rejects.toThrow('nope');
    await waitFor(() => loud.lines.length === 1, { message: 'the error line' });
    expect(loud.lines).toEqual([{ level: 'error', message: `job "x" ${b.id} of queue "loud" dead-lettered after attempt 1 of 1 (reason: error): nope` }]);
    expect(quiet.lines).toEqual([]);
    expect(() => new Worker('q', async () => undefined, { store: h.store, logFailures: { dead: 'loud' } as never })).toThrow(InvalidArgumentError);
    expect(() => new Worker('q', async () => undefined, { store: h.store, logFailures: { deadd: 'warn' } as never })).toThrow('did you mean "dead"?');
  });

  it('logs a job its worker abandoned: a warning when it is dead-lettered for stalling, a debug line when it goes back to waiting or is cancelled', async () => {
    const rec = logRecorder();
    const queue = h.queue('abandoned');
    const twice = await queue.add('render', {});
    // A worker that "died" holding the job: claimed with a short lease, never renewed or finished.
    const [held] = (await h.store.claim('abandoned', { count: 1, workerId: 'gone', lockMs: 30 })).jobs;
    expect(held!.id).toBe(twice.id);
    const started: string[] = []; // queue/id: ids are numbered per queue
    // maxStalledCount 0: the first stall dead-letters; this worker's reaper runs every 50 ms.
    h.worker('abandoned', async (job) => void started.push(`abandoned/${job.id}`), { logger: rec.logger, maxStalledCount: 0, stalledInterval: 50 });
    await waitFor(() => rec.at('warn').length === 1, { message: 'the stalled dead letter warning' });
    expect(rec.at('warn')).toEqual([
      `job ${twice.id} of queue "abandoned" dead-lettered (reason: stalled): its lease expired more than maxStalledCount (0) times; a worker died or blocked past its lease`,
    ]);
    expect(started).toEqual([]);
    expect((await queue.getJob(twice.id))!.error).toMatchObject({ reason: 'stalled' });

    const rec2 = logRecorder();
    const again = await h.queue('abandoned-2').add('render', {});
    await h.store.claim('abandoned-2', { count: 1, workerId: 'gone', lockMs: 30 });
    h.worker('abandoned-2', async (job) => void started.push(`abandoned-2/${job.id}`), { logger: rec2.logger, maxStalledCount: 1, stalledInterval: 50 });
    await waitFor(() => started.includes(`abandoned-2/${again.id}`), { message: 'the requeued job runs' });
    expect(rec2.at('debug')).toEqual([`job ${again.id} of queue "abandoned-2" stalled (a worker died or blocked past its lease) and is waiting again`]);
    expect(rec2.at('warn')).toEqual([]);

    // Cancelled while its worker was gone: the reaper finishes the cancel.
    const rec3 = logRecorder();
    const queue3 = h.queue('abandoned-3');
    const asked = await queue3.add('render', {});
    await h.store.claim('abandoned-3', { count: 1, workerId: 'gone', lockMs: 30 });
    expect(await queue3.cancel(asked.id)).toBe('cancelling');
    h.worker('abandoned-3', async (job) => void started.push(`abandoned-3/${job.id}`), { logger: rec3.logger, stalledInterval: 50 });
    await waitFor(() => rec3.at('debug').length === 1, { message: 'the stalled-and-cancelled line' });
    expect(rec3.at('debug')).toEqual([`job ${asked.id} of queue "abandoned-3" stalled with a cancel pending and is cancelled (a worker died or blocked past its lease)`]);
    expect((await queue3.getJob(asked.id))!.state).toBe('cancelled');
    expect(started).not.toContain(`abandoned-3/${asked.id}`);
  });

  // A downstream that is down dead-letters every job: one line each was ~100,000 lines in an hour.
  it('a flood of dead letters logs the first lines per queue and reason, then one summary line each', async () => {
    const rec = logRecorder();
    const queue = h.queue<{ fatal: boolean }>('flood');
    await queue.addBulk(Array.from({ length: 72 }, (_, i) => ({ name: 'send', data: { fatal: i % 6 === 0 } })));
    const worker = h.worker<{ fatal: boolean }>(
      'flood',
      async (j) => {
        if (j.data.fatal) throw new UnrecoverableError('no such mailbox');
        throw new Error('smtp down');
      },
      { logger: rec.logger, concurrency: 10, logFailures: { linesPerInterval: 5, interval: 60_000 } },
    );
    await waitFor(async () => (await queue.getCounts()).failed === 72, { message: '72 dead letters' });
    await worker.close();
    const warns = rec.at('warn');
    expect(warns.filter((l) => l.endsWith('(reason: error): smtp down'))).toHaveLength(5);
    expect(warns.filter((l) => l.endsWith('(reason: unrecoverable): no such mailbox'))).toHaveLength(5);
    const summaries = warns.filter((l) => l.startsWith('+')).sort();
    expect(summaries).toEqual([
      expect.stringMatching(/^\+55 more dead letters on queue "flood" \(reason error\) in the last \d+(\.\d)? s$/),
      expect.stringMatching(/^\+7 more dead letters on queue "flood" \(reason unrecoverable\) in the last \d+(\.\d)? s$/),
    ]);
    expect(warns).toHaveLength(12);
  });

  it('writes the summary when the interval ends, and every failure is a line or counted in one', async () => {
    const rec = logRecorder();
    const queue = h.queue('burst');
    await queue.addBulk(Array.from({ length: 30 }, () => ({ name: 'call', data: {} })));
    h.worker('burst', async () => { throw new Error('503'); }, { logger: rec.logger, concurrency: 5, logFailures: { linesPerInterval: 2, interval: 200 } });
    const told = (): number =>
      rec.at('warn').reduce((n, line) => n + (line.startsWith('+') ? Number(/^\+(\d+)/.exec(line)![1]) : 1), 0);
    // No close: the interval's own end writes the summary.
    await waitFor(() => told() === 30, { message: 'all 30 dead letters told, in lines and summaries' });
    const summaries = rec.at('warn').filter((l) => l.startsWith('+'));
    expect(summaries.length).toBeGreaterThan(0);
    for (const line of summaries) expect(line).toMatch(/^\+\d+ more dead letters on queue "burst" \(reason error\) in the last \d+(\.\d)? s$/);
    expect(rec.at('warn').length).toBeLessThan(30);
  });

  it('dead letters of the reaper (stalled past maxStalledCount) share the budget, under reason stalled', async () => {
    const rec = logRecorder();
    const queue = h.queue('stalls');
    await queue.addBulk(Array.from({ length: 12 }, () => ({ name: 'render', data: {} })));
    // A worker that "died" holding all of them: claimed with a short lease, never renewed or finished.
    expect((await h.store.claim('stalls', { count: 12, workerId: 'gone', lockMs: 30 })).jobs).toHaveLength(12);
    const worker = h.worker('stalls', async () => undefined, {
      logger: rec.logger, maxStalledCount: 0, stalledInterval: 50, logFailures: { linesPerInterval: 3, interval: 60_000 },
    });
    await waitFor(async () => (await queue.getCounts()).failed === 12, { message: '12 stalled dead letters' });
    await worker.close();
    const warns = rec.at('warn');
    expect(warns.filter((l) => l.includes('dead-lettered (reason: stalled)'))).toHaveLength(3);
    expect(warns.filter((l) => l.startsWith('+'))).toEqual([expect.stringMatching(/^\+9 more dead letters on queue "stalls" \(reason stalled\) in the last \d+(\.\d)? s$/)]);
    expect(() => new Worker('q', async () => undefined, { store: h.store, logFailures: { linesPerInterval: 0 } })).toThrow('logFailures.linesPerInterval');
  });

  it('says at shutdown what it waits for, and what it hands back', async () => {
    const rec = logRecorder();
    const queue = h.queue('emails');
    for (let i = 0; i < 3; i++) await queue.add('send', {});
    const worker = h.worker(
      'emails',
      (job) => new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve())),
      { logger: rec.logger, concurrency: 3 },
    );
    await waitFor(() => worker.activeCount === 3, { message: 'three running jobs' });
    await worker.close({ timeout: 1500 });
    expect(rec.at('log')).toEqual([expect.stringMatching(/^worker \S+ closing: waiting up to 1\.5 s for 3 running jobs of queue "emails"$/)]);
    expect(rec.at('warn')).toEqual([expect.stringMatching(/^worker \S+ closing: 3 jobs of queue "emails" still running after 1\.5 s; aborting them and handing them back to waiting$/)]);
    expect((await queue.getCounts()).waiting).toBe(3);
  });
});
