import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { InjectQueue, OnJob, OnQueueEvent, Processor, QueueModule, type ActiveJob, type Queue, type QueueEvent } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

@Processor('sharded-orders')
class Orders {
  readonly ran: number[] = [];

  @OnJob('place')
  place(job: ActiveJob<number>): number {
    this.ran.push(job.data);
    return job.data;
  }
}

@Injectable()
class Audit {
  readonly completed = new Set<string>();

  @OnQueueEvent('sharded-orders', 'completed')
  done(e: QueueEvent<'completed'>): void {
    this.completed.add(e.jobId);
  }
}

@Injectable()
class Producer {
  constructor(@InjectQueue('sharded-orders') readonly queue: Queue<number>) {}
}

describe('Nest: registerQueue({ shards })', () => {
  const h = nestHarness();

  it('gives the injected queue, its processors and its events the same shards', async () => {
    const app = await h.app({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue({ name: 'sharded-orders', shards: 3 })],
      providers: [Orders, Audit, Producer],
    });
    const { queue } = app.get(Producer);
    h.verifyAfter(queue);
    expect(queue.shards).toBe(3);
    const jobs = await queue.addBulk(Array.from({ length: 40 }, (_, i) => ({ name: 'place', data: i })));
    const audit = app.get(Audit);
    await waitFor(() => audit.completed.size === 40, { timeout: 10_000, message: '40 completed events' });
    expect([...app.get(Orders).ran].sort((a, b) => a - b)).toEqual(jobs.map((j) => j.data));
    expect((await queue.getCounts()).completed).toBe(40);
  });

  it('refuses two registrations of one queue with different shards', async () => {
    await expect(
      h.app({
        imports: [
          QueueModule.forRoot(rootOptions()),
          QueueModule.registerQueue({ name: 'sharded-orders', shards: 3 }),
          QueueModule.registerQueue({ name: 'sharded-orders', shards: 2 }),
        ],
        providers: [],
      }),
    ).rejects.toThrow(/shards.*registered elsewhere with shards: [23]/);
  });
});
