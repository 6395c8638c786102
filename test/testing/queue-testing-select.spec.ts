import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { getQueueToken, OnJob, Processor, Queue, QueueModule, type ActiveJob } from '../../lib/index.js';
import { QueueTesting } from '../../lib/testing/index.js';

// No Redis: every store here is a MemoryStore.
delete process.env.SPOOL_TEST_REDIS_URL;

@Processor('reports')
class ReportProcessor {
  readonly ran: string[] = [];
  @OnJob('digest', { schedule: { every: 60_000 } })
  digest(job: ActiveJob) {
    this.ran.push(`digest ${job.id}`);
    return 'digested';
  }
  @OnJob('export')
  export(job: ActiveJob<{ n: number }>) {
    this.ran.push(`export ${job.data.n}`);
    return job.data.n * 2;
  }
}

@Module({
  imports: [QueueModule.forRoot({ connection: { url: 'redis://127.0.0.1:1' } }), QueueModule.registerQueue('reports')],
  providers: [ReportProcessor],
})
class AppModule {}

describe('QueueTesting: schedules off by default, jobs picked by name', () => {
  let moduleRef: TestingModule | undefined;
  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
  });

  async function boot(testing: QueueTesting) {
    moduleRef = await testing.apply(Test.createTestingModule({ imports: [AppModule] })).compile();
    await moduleRef.init();
    return { reports: moduleRef.get<Queue>(getQueueToken('reports')), processor: moduleRef.get(ReportProcessor) };
  }

  it('a declared schedule is stored and listed but adds no job by default, however far the clock goes', async () => {
    const testing = new QueueTesting({ mode: 'manual', clock: 'manual' });
    const { reports } = await boot(testing);
    expect((await reports.getSchedulers()).map((s) => [s.id, s.repeat.every, s.next])).toEqual([['digest', 60_000, null]]);
    await testing.clock.advance(10 * 60_000);
    expect(testing.jobs('reports')).toEqual([]);
    expect(await testing.runNext('reports')).toBeNull();
  });

  it('schedules: true: the test clock drives the ticks, and runNext runs them', async () => {
    const testing = new QueueTesting({ mode: 'manual', clock: 'manual', schedules: true });
    const { reports, processor } = await boot(testing);
    const [digest] = await reports.getSchedulers();
    expect(digest!.next! - testing.clock.now()).toBeLessThanOrEqual(60_000);
    expect(testing.jobs('reports')).toHaveLength(1);
    expect(testing.jobs('reports')[0]!.state).toBe('delayed');
    await testing.clock.advance(60_000);
    expect(testing.jobs('reports', { name: 'digest', state: 'waiting' })).toHaveLength(1);
    const run = await testing.runNext('reports', 'digest');
    expect(run).toMatchObject({ name: 'digest', state: 'completed', result: 'digested' });
    expect(processor.ran).toEqual([`digest ${run!.id}`]);
  });

  it('jobs(), runNext() and drain() pick by job name; the other jobs keep their places', async () => {
    const testing = new QueueTesting({ mode: 'manual' });
    const { reports, processor } = await boot(testing);
    await reports.add('export', { n: 1 });
    await reports.upsertScheduler('adhoc', { every: 3_600_000 }, { name: 'digest' });
    await reports.add('digest', {});
    await reports.add('export', { n: 2 });
    await reports.add('export', { n: 3 });
    expect(testing.jobs('reports', { name: 'export' }).map((j) => j.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(testing.jobs('reports', { name: 'digest' }).map((j) => j.state)).toEqual(['waiting']);
    expect(testing.jobs('reports', 'waiting')).toHaveLength(4);

    const digest = await testing.runNext('reports', 'digest');
    expect(digest).toMatchObject({ name: 'digest', state: 'completed' });
    expect(await testing.runNext('reports', { name: 'digest' })).toBeNull();
    expect(testing.jobs('reports', { name: 'export', state: 'waiting' })).toHaveLength(3);

    const first = await testing.runNext('reports');
    expect(first).toMatchObject({ name: 'export', data: { n: 1 }, result: 2 });
    const rest = await testing.drain('reports', { name: 'export' });
    expect(rest.map((j) => j.result)).toEqual([4, 6]);
    expect(processor.ran).toEqual([`digest ${digest!.id}`, 'export 1', 'export 2', 'export 3']);
  });

  it('auto: drain({ name }) waits for the jobs of that name only', async () => {
    const testing = new QueueTesting();
    const { reports } = await boot(testing);
    await reports.add('export', { n: 5 });
    await reports.add('digest', {}, { delay: 3_600_000 });
    const done = await testing.drain('reports', { name: 'export' });
    expect(done.map((j) => [j.name, j.result])).toEqual([['export', 10]]);
    expect(testing.jobs('reports', { name: 'digest' }).map((j) => j.state)).toEqual(['delayed']);
  });

  it('bad filters and options name the field and the fix', async () => {
    const testing = new QueueTesting({ mode: 'manual' });
    await boot(testing);
    expect(() => testing.jobs('reports', { nme: 'export' } as never)).toThrow(/did you mean "name"/);
    await expect(testing.runNext('reports', { name: 7 } as never)).rejects.toThrow(/runNext\(\) filter.name/);
    await expect(testing.drain('reports', { conection: 'x' } as never)).rejects.toThrow(/did you mean "connection"/);
    expect(() => new QueueTesting({ schedules: 'yes' } as never)).toThrow(/QueueTesting options.schedules/);
  });
});
