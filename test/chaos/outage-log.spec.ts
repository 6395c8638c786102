import { Queue, RedisStore, Worker } from '../../lib/index.js';
import { logRecorder } from '../helpers/log-recorder.js';
import { waitFor } from '../helpers/wait-for.js';
import { ownRedis } from './support/own-redis.js';

// A Redis outage reads as a few lines a person can act on: one error when the
// connection is lost, at most one summary per outageLogInterval, one line when
// it is back, and no stack traces for these expected network errors.
describe('chaos: what an outage logs', () => {
  let redis: Awaited<ReturnType<typeof ownRedis>>;
  beforeEach(async () => {
    redis = await ownRedis();
  });
  afterEach(async () => {
    await redis.dispose();
  });

  it('two queues, Redis stopped for ~3.5 s: 1 error, at most one summary a second, 1 "reconnected after", no stacks', async () => {
    const rec = logRecorder();
    const store = new RedisStore({ url: redis.url, prefix: 'outage', logger: rec.logger, outageLogInterval: 1000 });
    await store.connect();
    const workers: Worker<unknown, string>[] = [];
    try {
      for (const name of ['emails', 'reports']) {
        const queue = new Queue(name, { store });
        // A delayed job keeps each queue's promoter busy: it retries every second while Redis is down.
        await queue.add('later', {}, { delay: 60_000 });
        workers.push(new Worker(name, async () => 'ok', { store, logger: rec.logger, stalledInterval: 500, lockDuration: 2000 }));
      }
      await Promise.all(workers.map((w) => w.run()));

      const stopped = Date.now();
      await redis.server.kill();
      // The outage itself: long enough for several promoter and reaper rounds per queue.
      await waitFor(() => Date.now() - stopped >= 3500, { timeout: 5000, interval: 100, message: 'the outage to last 3.5 s' });
      await redis.server.restart();
      await waitFor(() => rec.at('log').some((m) => m.startsWith('Redis reconnected after')), { timeout: 15_000, interval: 50, message: 'the reconnected line' });

      // Work goes on after the outage.
      const job = await new Queue('emails', { store }).add('now', {});
      await expect(new Queue('emails', { store }).waitFor(job.id, { timeout: 10_000 })).resolves.toBe('ok');

      const text = rec.lines.map((l) => `${l.level}: ${l.message}`).join('\n');
      expect(rec.at('error')).toHaveLength(1);
      expect(rec.at('error')[0]).toMatch(/^Redis is unreachable \(.+\); reconnecting\. Calls that fail meanwhile are summarized every 1\.0 s$/);
      expect(rec.lines.filter((l) => l.error !== undefined)).toEqual([]);
      expect(text).not.toMatch(/\n\s+at /);
      const reconnected = rec.at('log').filter((m) => m.startsWith('Redis reconnected after'));
      expect(reconnected).toHaveLength(1);
      expect(reconnected[0]).toMatch(/^Redis reconnected after (\d+\.\d) s \(\d+ calls failed meanwhile\)$/);
      const seconds = Number(/after (\d+\.\d) s/.exec(reconnected[0]!)![1]);
      expect(seconds).toBeGreaterThanOrEqual(3.4);
      // At most one summary per second of outage, each naming what failed and for which queues.
      const summaries = rec.at('warn');
      expect(summaries.length).toBeGreaterThanOrEqual(1);
      expect(summaries.length).toBeLessThanOrEqual(Math.floor(seconds));
      for (const line of summaries) expect(line).toMatch(/^Redis still unreachable after \d+\.\d s: \d+ calls failed since the last line \(.*x\d+ \((emails, reports|emails|reports)\)/);
      expect(summaries.join('\n')).toContain('promoting delayed jobs failed x');
      expect(rec.lines.length).toBe(2 + summaries.length);
    } finally {
      await Promise.all(workers.map((w) => w.close({ timeout: 1000 })));
      await store.disconnect();
    }
  });
});
