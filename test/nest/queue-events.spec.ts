import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import {
  InjectQueue,
  InjectQueueEvents,
  OnJob,
  OnQueueEvent,
  Processor,
  QueueModule,
  SpoolBootstrapError,
  type ActiveJob,
  type Queue,
  type QueueEvent,
  type QueueEvents,
} from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

/** Any provider (not a processor) listening to queue events. */
@Injectable()
class Audit {
  readonly seen: string[] = [];

  @OnQueueEvent('orders', 'completed')
  @OnQueueEvent('orders', 'added')
  record(e: QueueEvent<'completed' | 'added'>): void {
    this.seen.push(`${e.event} ${e.jobId}`);
  }

  @OnQueueEvent('orders', 'failed')
  dead(e: QueueEvent<'failed'>): void {
    this.seen.push(`failed ${e.jobId} ${e.next}`);
  }
}

@Processor('orders')
class Orders {
  @OnJob('place')
  place(job: ActiveJob<number>): number {
    if (job.data < 0) throw new Error('negative');
    return job.data * 2;
  }
}

@Injectable()
class Watcher {
  constructor(@InjectQueueEvents('orders') readonly events: QueueEvents, @InjectQueue('orders') readonly queue: Queue<number>) {}
}

describe('Nest: @OnQueueEvent on any provider, QueueEvents injectable per queue', () => {
  const h = nestHarness();

  it('delivers the queue events to decorated methods and to the injected QueueEvents', async () => {
    const app = await h.app({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('orders')],
      providers: [Audit, Orders, Watcher],
    });
    const { events, queue } = app.get(Watcher);
    h.verifyAfter(queue);
    const injected: string[] = [];
    events.on('completed', (e) => injected.push(e.jobId));
    const ok = await queue.add('place', 2);
    const bad = await queue.add('place', -1);
    const audit = app.get(Audit);
    await waitFor(() => audit.seen.length === 4 && injected.length === 1, { message: 'four audited events' });
    expect(audit.seen.sort()).toEqual([`added ${bad.id}`, `added ${ok.id}`, `completed ${ok.id}`, `failed ${bad.id} dead`].sort());
    expect(injected).toEqual([ok.id]);
  });

  it('refuses @OnQueueEvent for a queue that is not registered', async () => {
    @Injectable()
    class Stray {
      @OnQueueEvent('nowhere', 'completed')
      on(): void {}
    }
    await expect(h.app({ imports: [QueueModule.forRoot(rootOptions())], providers: [Stray] })).rejects.toThrow(SpoolBootstrapError);
  });
});
