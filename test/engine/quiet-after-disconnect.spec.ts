import { Queue, RedisStore, Worker } from '../../lib/index.js';
import type { Store } from '../../lib/store/index.js';
import { MemoryStore } from '../../lib/testing/index.js';
import { logRecorder, type LogLine } from '../helpers/log-recorder.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/**
 * close() then disconnect(), while the worker's background duties are mid
 * round (here: the promoter refilling the cron times of 100 schedulers, two
 * calls each): nothing of the worker may run on and log a
 * StoreNotConnectedError after the store is gone.
 */
describe.each([
  ['RedisStore', (logger: ReturnType<typeof logRecorder>['logger']) => new RedisStore({ url: redisUrl() }, { prefix: uniquePrefix('quiet'), logger })],
  ['MemoryStore', () => new MemoryStore()],
] as const)('after close() and disconnect() on a %s', (_label, open) => {
  it('nothing is logged: every timer and every round it started ended with its worker', async () => {
    const rec = logRecorder();
    const store: Store = open(rec.logger);
    await store.connect();
    const queue = new Queue('quiet', { store });
    // endAt 20 s ahead: fewer than 25 cron times each, so every promote asks for refills of all of them.
    const endAt = Date.now() + 20_000;
    for (let i = 0; i < 100; i++) await queue.upsertScheduler(`s${i}`, { cron: '* * * * * *', endAt }, { name: 'tick' });
    const worker = new Worker('quiet', async () => undefined, { store, logger: rec.logger, concurrency: 1 });
    let completed = 0;
    worker.on('completed', () => void completed++);
    await waitFor(() => completed > 0, { message: 'a tick to run', timeout: 5000 });
    await worker.close();
    await queue.close();
    await store.disconnect();
    const before = rec.lines.length;
    // The refills left (up to 200 calls) would run into the closed store within this time.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const after: LogLine[] = rec.lines.slice(before);
    expect(after.map((l) => `${l.level}: ${l.message} ${l.error instanceof Error ? l.error.message : ''}`)).toEqual([]);
  });
});
