import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { OnJob, Processor, Queue, QueueModule, Worker, getQueueToken, type ActiveJob } from '../../lib/index.js';
import { engineHarness } from '../helpers/harness.js';
import { redisUrl, uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness } from '../nest/nest-harness.js';

/** docs/guide/schedulers.md "Schedulers" examples, as written there (connection and store from the harnesses). */
const cleaned: number[] = [];

@Processor('reports')
export class ReportsProcessor {
  @OnJob('digest', { schedule: { cron: '0 8 * * *', tz: 'Europe/Paris' } })   // scheduler id: 'digest'
  digest(_job: ActiveJob) { /* ... */ }

  @OnJob('cleanup')
  cleanup(job: ActiveJob<{ days: number }>) { cleaned.push(job.data.days); }
}

function appModule(prefix: string) {
  @Module({
    imports: [
      QueueModule.forRoot({ connection: { url: redisUrl(), prefix } }),
      QueueModule.registerQueue({
        name: 'reports',
        schedulers: [{ id: 'cleanup', repeat: { every: 3_600_000 }, job: { name: 'cleanup', data: { days: 30 } } }],
        pruneSchedulers: true,   // remove this queue's schedulers that nothing declares any more
      }),
    ],
    providers: [ReportsProcessor],
  })
  class AppModule {}
  return AppModule;
}

/** The next 08:00 in Paris after `now`, found by stepping whole minutes through Intl (independent of croner). */
function nextParisEight(now: number): number {
  const fmt = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  for (let t = Math.floor(now / 60_000) * 60_000 + 60_000; ; t += 60_000) if (fmt.format(t) === '08:00') return t;
}

describe('README schedulers, Nest form', () => {
  const h = nestHarness();

  it('upserts the decorator and registerQueue schedulers at bootstrap', async () => {
    const app = await h.app({ imports: [appModule(uniquePrefix('readme-sched'))] });
    const queue = app.get<Queue>(getQueueToken('reports'));
    h.verifyAfter(queue);
    const schedulers = await queue.getSchedulers();
    expect(schedulers.map((s) => s.id)).toEqual(['cleanup', 'digest']);
    expect(schedulers[1]!.next).toBe(nextParisEight(Date.now()));
    expect(schedulers[0]!.job).toMatchObject({ name: 'cleanup', data: { days: 30 } });
  });
});

describe('README schedulers, engine form', () => {
  const h = engineHarness();

  it('runs the heartbeat three times and reports the digest', async () => {
    const store = h.store;
    const queue = new Queue('reports', { store });
    h.queue('reports');

    await queue.upsertScheduler('digest', { cron: '0 8 * * *', tz: 'Europe/Paris' }, { name: 'digest', data: { to: 'team' } });
    await queue.upsertScheduler('heartbeat', { every: 500, limit: 3, missed: 'skip' }, { name: 'beat', opts: { attempts: 3 } });

    const ran: string[] = [];
    const worker = new Worker('reports', async (job) => void ran.push(job.id), { store });
    await waitFor(() => ran.length === 3, { timeout: 5000, message: 'three heartbeats' });
    expect(ran.map((id) => id.replace(/\d+$/, 'N'))).toEqual(['heartbeat:N', 'heartbeat:N', 'heartbeat:N']);

    const digest = await queue.getScheduler('digest');
    expect(digest!.next).toBe(nextParisEight(Date.now()));
    expect((await queue.getSchedulers()).map((s) => s.id)).toEqual(['digest', 'heartbeat']);
    expect(await queue.removeScheduler('digest')).toBe(true);
    expect((await queue.getScheduler('heartbeat'))!.next).toBeNull();

    await worker.close();
  });
});
