import { mkdtempSync, readFileSync } from 'node:fs';
import { createWriteStream } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Queue, QueueEvents, toNdjson, type RedisStore } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { waitFor } from '../helpers/wait-for.js';

/** Dead letters through the real transitions: add, claim, fail with a reason. */
async function kill(store: RedisStore, queue: Queue, name: string, reason: string, message: string, count = 1): Promise<void> {
  await queue.addBulk(Array.from({ length: count }, (_, i) => ({ name, data: { i } })));
  const { jobs } = await store.claim(queue.name, { count, workerId: 'w', lockMs: 60_000 });
  for (const r of jobs) await store.fail(queue.name, { id: r.id, token: r.token! }, { retryDelay: -1, reason, message, stack: '', code: 'Error' });
}

/** docs/guide/retries.md, docs/operations/workers.md and docs/reference/events.md examples (dead letters, workers, drain, events), as written there, with the store from the harness. */
describe('README operating examples', () => {
  const h = engineHarness();
  // The dead-letters example writes its file into a temp dir: later suites in this jest worker need the repo as cwd.
  const home = process.cwd();
  afterEach(() => process.chdir(home));

  it('Workers: each running worker is listed from its heartbeat', async () => {
    const queue = h.queue('emails');
    const worker = h.worker('emails', async () => 'ok', { concurrency: 10 });
    await waitFor(async () => (await queue.getWorkers()).length === 1, { message: 'the worker listed' });
    const printed: unknown[][] = [];
    const console = { log: (...args: unknown[]) => printed.push(args) };

    for (const w of await queue.getWorkers()) {
      console.log(w.id, w.hostname, w.pid, `${w.running}/${w.concurrency}`, new Date(w.seenAt));
    }

    expect(printed).toHaveLength(1);
    expect(printed[0]!.slice(0, 4)).toEqual([worker.id, hostname(), process.pid, '0/10']);
    expect(printed[0]![4]).toBeInstanceOf(Date);
  });

  it('Dead letters: pages, text search, redrive, purge, NDJSON export, bulk cancel and promote', async () => {
    const store = h.store;
    const setup = h.queue('emails');
    await kill(store, setup, 'send', 'timeout', 'SMTP timed out', 60);
    await kill(store, setup, 'send', 'error', 'connect ECONNREFUSED 10.0.0.1:25', 3);
    await setup.addBulk([
      { name: 'reminder', data: {}, opts: { delay: 60_000 } },
      { name: 'digest', data: {}, opts: { delay: 60_000 } },
    ]);
    const dir = mkdtempSync(join(tmpdir(), 'spool-readme-'));
    process.chdir(dir);
    const lines: string[] = [];
    const console = { log: (...parts: unknown[]) => lines.push(parts.join(' ')) };

    const queue = new Queue('emails', { store }); // store: connected as in the engine example

    // Newest first, 50 per page; name and reason filters read indexes kept by the scripts.
    const page = await queue.getFailed({ name: 'send', reason: 'timeout', since: Date.now() - 3_600_000, limit: 50 });
    for (const job of page.jobs) console.log(job.id, job.attempt, job.error?.reason, job.error?.message);
    const next = page.cursor && (await queue.getFailed({ name: 'send', reason: 'timeout', since: Date.now() - 3_600_000, cursor: page.cursor }));

    // Text search scans in bounded steps: a page may hold fewer jobs and still have a cursor.
    const smtp = await queue.getFailed({ errorContains: 'ECONNREFUSED' });

    // Export first here (the README exports after redrive; this checks the file has the dead letters).
    await pipeline(Readable.from(toNdjson(queue.exportJobs('failed', { name: 'send' }))), createWriteStream('dead-letters.ndjson'));
    expect(readFileSync(join(dir, 'dead-letters.ndjson'), 'utf8').trim().split('\n')).toHaveLength(63);

    // Retry all failed jobs of a name (batched; a job already re-driven is skipped, even by a concurrent call).
    const moved = await queue.redrive({ filter: { name: 'send', reason: 'timeout' } }, { resetAttempts: true, delay: 0 });
    await queue.redrive(smtp.jobs.map((j) => j.id)); // or by ids

    // Delete old finished jobs in short batches.
    const purged = await queue.purge('completed', { olderThan: 7 * 24 * 3_600_000 });

    // Bulk cancel and promote (run delayed jobs now), by ids or filter.
    await queue.cancel({ filter: { state: 'delayed', name: 'reminder' } });
    await queue.promote({ filter: { name: 'digest' } });

    expect(lines).toHaveLength(50);
    expect(page.jobs).toHaveLength(50);
    expect(next && next.jobs).toHaveLength(10);
    expect(smtp.jobs).toHaveLength(3);
    expect(moved).toBe(60);
    expect(purged).toBe(0);
    expect(await queue.getCounts()).toMatchObject({ failed: 0, waiting: 64, cancelled: 1, delayed: 0 });
  });

  it('Events: listeners, the async iterator, gap, and the stream settings', async () => {
    const store = h.store;
    const queue = h.queue('emails');
    const warnings: string[] = [];
    const console = { warn: (line: string) => warnings.push(line), log: (...parts: unknown[]) => warnings.push(parts.join(' ')) };

    const events = new QueueEvents('emails', { store }); // from: '$' (default, new events), '0' (all retained) or an id
    events.on('failed', (e) => {
      if (e.next === 'dead') console.warn(`job ${e.jobId} died: ${e.reason}: ${e.message}`);
    });
    events.on('gap', (g) => console.warn(`events after ${g.after} were trimmed before we read them`));
    await events.ready();

    await kill(store, queue, 'send', 'timeout', 'SMTP timed out');
    h.worker('emails', async () => 'sent');
    await queue.add('send', { to: 'ada@example.com' });

    for await (const e of events) {
      if (e.event === 'completed') console.log(e.jobId, `${e.size} bytes of result`);
      if (e.event === 'completed') break;
    }
    await events.close();

    await queue.configure({ events: { maxLen: 50_000 } }); // events kept, about (default 10,000)
    await queue.configure({ events: false });              // no stream for this queue; null = back to the default

    await waitFor(() => warnings.length >= 2, { message: 'the dead letter warning and the completion' });
    expect(warnings[0]).toMatch(/^job \S+ died: timeout: SMTP timed out$/);
    expect(warnings[1]).toMatch(/^\S+ 6 bytes of result$/);
    expect(await queue.getLimits()).toMatchObject({ events: false });
  });
});
