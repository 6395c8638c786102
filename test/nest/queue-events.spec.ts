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
import { createClient } from 'redis';
import { redisUrl } from '../helpers/store.js';
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

  it('opens an event connection only for queues someone listens to', async () => {
    const options = rootOptions();
    const prefix = options.connection.prefix;
    const eventConnections = async (): Promise<string[]> => {
      const admin = createClient({ url: redisUrl() });
      await admin.connect();
      try {
        const list = String(await admin.sendCommand(['CLIENT', 'LIST']));
        return list.split('\n').map((l) => /\bname=spool-events:(\S+)/.exec(l)?.[1] ?? '').filter((n) => n.includes(prefix)).sort();
      } finally {
        await admin.close();
      }
    };
    const app = await h.app({
      imports: [QueueModule.forRoot(options), QueueModule.registerQueue('orders', 'idle-a', 'idle-b')],
      providers: [Audit, Orders, Watcher],
    });
    // Audit listens to orders; Watcher injected its reader but attached nothing yet.
    await waitFor(async () => (await eventConnections()).length === 1, { message: 'one event connection (orders)' });
    expect((await eventConnections())[0]).toContain('orders');
    const { events } = app.get(Watcher);
    events.on('added', () => undefined);
    await events.ready();
    // Same reader, so still one; the idle queues never opened one.
    expect(await eventConnections()).toHaveLength(1);
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
