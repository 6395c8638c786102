import { Queue, Worker, type RedisStore } from '../../lib/index.js';
import { MemoryStore } from '../../lib/testing/index.js';
import { silentLogger, testStore } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';

/** queue.pauseWorker(id) / resumeWorker(id): a request the worker takes at its next heartbeat (every 5 s). */
describe('pausing one worker through its queue', () => {
  it('memory store, manual clock: the next heartbeat pauses the worker, the one after resumes it; the other worker runs on', async () => {
    const store = new MemoryStore({ clock: 'manual' });
    const q = new Queue('mail', { store });
    const ran: string[] = [];
    const a = new Worker('mail', async (job) => void ran.push(`a ${job.id}`), { store, logger: silentLogger });
    const b = new Worker('mail', async () => undefined, { store, logger: silentLogger });
    try {
      await Promise.all([a.run(), b.run()]);
      await store.clock.advance(1);
      expect(await q.pauseWorker(a.id)).toBe(true);
      expect(a.isPaused()).toBe(false);
      await store.clock.advance(5_000);
      expect(a.isPaused()).toBe(true);
      expect(b.isPaused()).toBe(false);
      expect((await q.getWorkers()).find((w) => w.id === a.id)?.paused).toBe(true);
      expect(await q.resumeWorker(a.id)).toBe(true);
      await store.clock.advance(5_000);
      expect(a.isPaused()).toBe(false);
      expect(await q.pauseWorker('no-such-worker')).toBe(false);
      await expect(q.pauseWorker('')).rejects.toThrow(/pauseWorker\(\) id/);
    } finally {
      await Promise.all([a.close(), b.close()]);
      await store.disconnect();
    }
  });

  describe('on Redis', () => {
    let store: RedisStore;
    beforeAll(async () => {
      store = await testStore();
    });
    afterAll(() => store.disconnect());

    it('the worker takes the request within one heartbeat and is listed as paused', async () => {
      const q = new Queue('mail', { store });
      const w = new Worker('mail', async () => undefined, { store, logger: silentLogger });
      try {
        await w.run();
        await waitFor(async () => (await q.getWorkers()).some((x) => x.id === w.id), { message: 'the worker listed' });
        expect(await q.pauseWorker(w.id)).toBe(true);
        await waitFor(async () => (await q.getWorkers()).find((x) => x.id === w.id)?.paused === true, { timeout: 8000, message: 'the worker paused by its heartbeat' });
        expect(w.isPaused()).toBe(true);
      } finally {
        await w.close();
      }
    }, 15_000);
  });
});
