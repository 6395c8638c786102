import 'reflect-metadata';
import type { ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { OnJob, Processor, Queue, QueueModule, SpoolBootstrapError, getQueueToken, type ActiveJob } from '../../lib/index.js';
import { testStore, uniquePrefix, redisUrl } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

/** Tick ids seen by every app instance of a test (two instances share it). */
const seen: string[] = [];
const tickOf = (id: string) => Number(id.slice(id.lastIndexOf(':') + 1));

@Processor('digests')
class DigestProcessor {
  @OnJob('digest', { schedule: { every: 200, missed: 'all' } })
  digest(job: ActiveJob): void {
    seen.push(job.id);
  }

  @OnJob('daily', { schedule: { cron: '0 8 * * *', tz: 'Europe/Paris', data: { kind: 'daily' } } })
  daily(): void {}

  @OnJob('cleanup')
  cleanup(): void {}
}

@Processor('digests')
class BadScheduleProcessor {
  @OnJob('digest', { schedule: { cron: '0 8 * * *', tz: 'Atlantis/Capital' } })
  digest(): void {}
}

function appModule(prefix: string): ModuleMetadata {
  return {
    imports: [
      QueueModule.forRoot(rootOptions(prefix)),
      QueueModule.registerQueue({
        name: 'digests',
        schedulers: [{ id: 'cleanup', repeat: { every: 3_600_000 }, job: { name: 'cleanup', data: { days: 30 } } }],
        pruneSchedulers: true,
      }),
    ],
    providers: [DigestProcessor],
  };
}

describe('schedulers in Nest (@OnJob schedule, registerQueue schedulers)', () => {
  const h = nestHarness();

  it('two app instances booting at once upsert each scheduler once, prune undeclared ones, and run each tick once', async () => {
    seen.length = 0;
    const prefix = uniquePrefix('nest-sched');
    const store = await testStore(redisUrl(), prefix);
    try {
      const plain = new Queue('digests', { store });
      await plain.upsertScheduler('retired', { every: 60_000 }, { name: 'old' });

      const [a, b] = await Promise.all([h.app(appModule(prefix)), h.app(appModule(prefix))]);
      const queue = a.get<Queue>(getQueueToken('digests'));

      const schedulers = await queue.getSchedulers();
      expect(schedulers.map((s) => s.id)).toEqual(['cleanup', 'daily', 'digest']);
      expect(schedulers.find((s) => s.id === 'daily')).toMatchObject({ repeat: { cron: '0 8 * * *', tz: 'Europe/Paris' }, job: { name: 'daily', data: { kind: 'daily' } } });
      expect(schedulers.find((s) => s.id === 'cleanup')).toMatchObject({ job: { name: 'cleanup', data: { days: 30 } } });
      const pending = (await queue.getJobs('delayed')).map((j) => j.id.slice(0, j.id.lastIndexOf(':'))).sort();
      expect(pending.filter((id) => id !== 'digest')).toEqual(['cleanup', 'daily']);
      expect(pending.filter((id) => id === 'digest').length).toBeLessThanOrEqual(1);

      await waitFor(() => seen.length >= 5, { timeout: 10_000, message: '5 digest ticks' });
      expect(new Set(seen).size).toBe(seen.length);
      // verify() walks the indexes one read at a time: both apps (and their workers) stop first.
      await Promise.all([h.close(a), h.close(b)]);
      expect(await plain.verify()).toEqual([]);
      // Every digest tick job that exists, run or still waiting: one per 200 ms, none missing.
      const jobs = [...(await plain.getJobs('completed')), ...(await plain.getJobs('waiting'))].filter((j) => j.name === 'digest');
      const ticks = jobs.map((j) => tickOf(j.id)).sort((x, y) => x - y);
      for (let i = 1; i < ticks.length; i += 1) expect(ticks[i]! - ticks[i - 1]!).toBe(200);
      expect(seen.every((id) => jobs.some((j) => j.id === id))).toBe(true);
    } finally {
      await store.disconnect();
    }
  });

  it('refuses a bad schedule at bootstrap, naming the method and the field', async () => {
    let error: unknown;
    const app = await Test.createTestingModule({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('digests')],
      providers: [BadScheduleProcessor],
    }).compile();
    try {
      await app.init();
    } catch (err) {
      error = err;
    } finally {
      await app.close();
    }
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect((error as Error).message).toMatch(/BadScheduleProcessor\.digest.*repeat\.tz/);
  });
});
