import { InvalidArgumentError, Queue, type RedisStore } from '../../lib/index.js';
import { testStore } from '../helpers/store.js';

/** Dead letters made through the real transitions: add, claim, fail (dead-letter now) with a reason and message. */
async function deadLetters(store: RedisStore, queue: Queue, jobs: readonly { name: string; reason: string; message: string }[]): Promise<string[]> {
  const added = await queue.addBulk(jobs.map((j, i) => ({ name: j.name, data: i })));
  const { jobs: claimed } = await store.claim(queue.name, { count: jobs.length, workerId: 'w', lockMs: 60_000 });
  const byId = new Map(added.map((job, i) => [job.id, jobs[i]!]));
  for (const r of claimed) {
    const j = byId.get(r.id)!;
    await store.fail(queue.name, { id: r.id, token: r.token! }, { retryDelay: -1, reason: j.reason, message: j.message, stack: 'at x', code: 'Error' });
  }
  return added.map((j) => j.id);
}

describe('dead letters: getFailed, redrive, purge, export, bulk cancel and promote', () => {
  let store: RedisStore;
  let queue: Queue<number>;

  beforeEach(async () => {
    store = await testStore();
    queue = new Queue<number>('dlq', { store });
  });
  afterEach(async () => {
    expect(await queue.verify()).toEqual([]);
    await store.disconnect();
  });

  it('pages dead letters newest first with cursors, every job once, with reason and error', async () => {
    const ids = await deadLetters(store, queue, Array.from({ length: 23 }, (_, i) => ({ name: 'mail', reason: 'error', message: `boom ${i}` })));
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await queue.getFailed({ limit: 5, ...(cursor && { cursor }) });
      pages += 1;
      expect(page.jobs.length).toBeLessThanOrEqual(5);
      seen.push(...page.jobs.map((j) => j.id));
      cursor = page.cursor ?? undefined;
    } while (cursor);
    expect(pages).toBe(5);
    expect([...seen].sort()).toEqual([...ids].sort());
    const [first] = (await queue.getFailed({ limit: 1 })).jobs;
    expect(first).toMatchObject({ state: 'failed', name: 'mail', attempt: 1, error: { reason: 'error', stack: 'at x', code: 'Error' } });
    expect(first!.finishedAt).toEqual(expect.any(Number));
  });

  it('filters by name, by reason and by both through their indexes, and by error text', async () => {
    await deadLetters(store, queue, [
      { name: 'mail', reason: 'timeout', message: 'SMTP timed out' },
      { name: 'mail', reason: 'error', message: 'mailbox full' },
      { name: 'sms', reason: 'timeout', message: 'gateway timed out' },
      { name: 'sms', reason: 'unrecoverable', message: 'bad number' },
    ]);
    const names = async (q: Parameters<typeof queue.getFailed>[0]) => (await queue.getFailed(q)).jobs.map((j) => `${j.name}/${j.error!.reason}`).sort();
    expect(await names({ name: 'mail' })).toEqual(['mail/error', 'mail/timeout']);
    expect(await names({ reason: 'timeout' })).toEqual(['mail/timeout', 'sms/timeout']);
    expect(await names({ name: 'sms', reason: 'timeout' })).toEqual(['sms/timeout']);
    expect(await names({ errorContains: 'TIMED OUT' })).toEqual(['mail/timeout', 'sms/timeout']);
    expect(await names({ name: 'sms', errorContains: 'number' })).toEqual(['sms/unrecoverable']);
    expect(await names({ until: 0 })).toEqual([]);
    expect(await names({ since: new Date(Date.now() - 60_000) })).toHaveLength(4);
  });

  it('keeps the name and reason indexes when jobs leave failed (redrive, remove, purge, retention)', async () => {
    const ids = await deadLetters(store, queue, Array.from({ length: 6 }, () => ({ name: 'mail', reason: 'timeout', message: 'x' })));
    expect(await queue.retry(ids[0]!)).toBe('waiting');
    expect(await queue.remove(ids[1]!)).toBe(true);
    expect(await queue.purge('failed', { limit: 2 })).toBe(2);
    const left = (await queue.getFailed({ name: 'mail', reason: 'timeout' })).jobs.map((j) => j.id).sort();
    expect(left).toHaveLength(2);
    expect((await queue.getFailed({ reason: 'timeout' })).jobs.map((j) => j.id).sort()).toEqual(left);
    expect((await queue.getFailed({ name: 'mail' })).jobs.map((j) => j.id).sort()).toEqual(left);
  });

  it('refuses bad filters and tampered cursors with InvalidArgumentError', async () => {
    await deadLetters(store, queue, Array.from({ length: 3 }, () => ({ name: 'mail', reason: 'error', message: 'x' })));
    const { cursor } = await queue.getFailed({ limit: 1 });
    expect(cursor).not.toBeNull();
    const flipped = `${cursor!.slice(0, 3)}${cursor![3] === 'A' ? 'B' : 'A'}${cursor!.slice(4)}`;
    await expect(queue.getFailed({ cursor: flipped })).rejects.toThrow(InvalidArgumentError);
    await expect(queue.getFailed({ cursor: 'garbage' })).rejects.toThrow(/cursor/);
    await expect(queue.getFailed({ name: 'sms', cursor: cursor! })).rejects.toThrow(/another filter/);
    await expect(queue.getFailed({ limit: 0 })).rejects.toThrow(/limit/);
    await expect(queue.getFailed({ since: 10, until: 5 })).rejects.toThrow(/since/);
    await expect(queue.getFailed({ nme: 'x' } as never)).rejects.toThrow(/did you mean "name"/);
    expect((await queue.getFailed({ cursor: cursor! })).jobs).toHaveLength(2);
  });

  it('redrives by filter: two operators at once move each job once, attempts reset or kept', async () => {
    await deadLetters(store, queue, Array.from({ length: 1200 }, (_, i) => ({ name: i % 2 ? 'a' : 'b', reason: 'error', message: 'x' })));
    const [one, two] = await Promise.all([queue.redrive({ filter: { name: 'a' } }), queue.redrive({ filter: { name: 'a' } })]);
    expect(one + two).toBe(600);
    expect(await queue.getCounts()).toMatchObject({ waiting: 600, failed: 600 });
    expect((await queue.getJobs('waiting', 0, 0))[0]).toMatchObject({ name: 'a', attempt: 0 });
    expect(await queue.redrive({ filter: { name: 'a' } })).toBe(0);
    const b = (await queue.getFailed({ name: 'b', limit: 2 })).jobs.map((j) => j.id);
    expect(await queue.redrive([...b, b[0]!, 'nope'], { resetAttempts: false, delay: 60_000 })).toBe(2);
    expect(await queue.getJob(b[0]!)).toMatchObject({ state: 'delayed', attempt: 1 });
  });

  it('purges by age and name in short batches, and refuses unfinished states', async () => {
    await deadLetters(store, queue, Array.from({ length: 30 }, (_, i) => ({ name: i < 10 ? 'a' : 'b', reason: 'error', message: 'x' })));
    expect(await queue.purge('failed', { olderThan: 60_000 })).toBe(0);
    expect(await queue.purge('failed', { name: 'a' })).toBe(10);
    expect(await queue.purge('failed', { olderThan: 0, limit: 5 })).toBe(5);
    expect(await queue.purge('failed')).toBe(15);
    await expect(queue.purge('active' as never)).rejects.toThrow(InvalidArgumentError);
    expect(await queue.getCounts()).toMatchObject({ failed: 0 });
  });

  it('exports every job of a state as snapshots, page by page, and as NDJSON lines', async () => {
    const { toNdjson } = await import('../../lib/index.js');
    await deadLetters(store, queue, Array.from({ length: 250 }, (_, i) => ({ name: 'mail', reason: 'error', message: `m${i}` })));
    const ids: string[] = [];
    for await (const job of queue.exportJobs('failed')) ids.push(job.id);
    expect(new Set(ids).size).toBe(250);
    const lines: string[] = [];
    for await (const line of toNdjson(queue.exportJobs('failed', { errorContains: 'm24' }))) lines.push(line);
    expect(lines.map((l) => (JSON.parse(l) as { error: { message: string } }).error.message).sort()).toEqual(['m24', 'm240', 'm241', 'm242', 'm243', 'm244', 'm245', 'm246', 'm247', 'm248', 'm249']);
    expect(lines.every((l) => l.endsWith('\n'))).toBe(true);
    await expect(queue.exportJobs('completed', { reason: 'error' }).next()).rejects.toThrow(InvalidArgumentError);
  });

  it('cancels and promotes in bulk, by ids and by filter', async () => {
    const later = await queue.addBulk(Array.from({ length: 8 }, (_, i) => ({ name: i < 4 ? 'a' : 'b', data: i, opts: { delay: 60_000 } })));
    expect(await queue.promote([later[0]!.id, later[0]!.id])).toBe(1);
    expect(await queue.promote({ filter: { name: 'a' } })).toBe(3);
    expect(await queue.getCounts()).toMatchObject({ waiting: 4, delayed: 4 });
    expect(await queue.cancel({ filter: { state: 'delayed', name: 'b' } })).toBe(4);
    expect(await queue.cancel([later[0]!.id, later[1]!.id])).toBe(2);
    expect(await queue.cancel({ filter: { state: 'waiting' } })).toBe(2);
    expect(await queue.getCounts()).toMatchObject({ waiting: 0, delayed: 0, cancelled: 8 });
    await expect(queue.cancel({ filter: { state: 'active' } } as never)).rejects.toThrow(/cancel active jobs by id/);
  });
});
