import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { LazyModuleLoader } from '@nestjs/core';
import { IsInt, Min } from 'class-validator';
import {
  FlowProducer,
  InjectFlowProducer,
  OnJob,
  Processor,
  QueueModule,
  QueueValidationError,
  UnknownQueueError,
  getQueueToken,
  type ActiveJob,
  type Queue,
} from '../../lib/index.js';
import { uniquePrefix } from '../helpers/store.js';
import { nestHarness, rootOptions } from './nest-harness.js';

class PickDto {
  @IsInt()
  @Min(1)
  qty!: number;
}

@Injectable()
class Orders {
  constructor(@InjectFlowProducer() readonly flows: FlowProducer) {}

  place(id: string, qty: number) {
    return this.flows.add({
      name: 'ship',
      queueName: 'orders',
      data: { id },
      opts: { jobId: `order:${id}` },
      children: [
        { name: 'charge', queueName: 'orders', data: { id }, opts: { jobId: `charge:${id}` } },
        { name: 'pick', queueName: 'warehouse', data: { qty }, opts: { jobId: `pick:${id}` } },
        { name: 'label', queueName: 'warehouse', data: { qty: 1 }, opts: { jobId: `label:${id}` } },
      ],
    });
  }
}

/** Runs in one app: the order queue (parents and charges). */
@Processor('orders')
class OrderProcessor {
  @OnJob('charge')
  charge(job: ActiveJob<{ id: string }>): string {
    return `charged ${job.data.id}`;
  }

  @OnJob('ship')
  async ship(job: ActiveJob<{ id: string }>): Promise<Record<string, unknown>> {
    return job.getChildrenResults();
  }
}

/** Runs in another app: the warehouse queue. */
@Processor('warehouse')
class WarehouseProcessor {
  @OnJob('pick', { dto: PickDto })
  pick(_job: ActiveJob, pick: PickDto): string {
    return `picked ${pick.qty}`;
  }

  @OnJob('label')
  label(): string {
    return 'labelled';
  }
}

@Module({ imports: [QueueModule.registerQueue('orders', 'warehouse'), QueueModule.registerFlowProducer()], providers: [Orders] })
class OrdersModule {}

describe('flows in Nest', () => {
  const nest = nestHarness();

  it('completes a parent whose children ran in another app, with their results', async () => {
    const prefix = uniquePrefix('flow');
    const front = await nest.app({ imports: [QueueModule.forRoot(rootOptions(prefix)), OrdersModule], providers: [OrderProcessor] });
    await nest.app({ imports: [QueueModule.forRoot(rootOptions(prefix)), QueueModule.registerQueue('warehouse')], providers: [WarehouseProcessor] });
    const orders = front.get<Queue>(getQueueToken('orders'), { strict: false });
    const warehouse = front.get<Queue>(getQueueToken('warehouse'), { strict: false });
    nest.verifyAfter(orders, warehouse);

    const tree = await front.get(Orders).place('o1', 3);
    expect(tree.job.state).toBe('waiting-children');
    await expect(orders.waitFor('order:o1', { timeout: 10_000 })).resolves.toEqual({
      'orders:charge:o1': 'charged o1',
      'warehouse:pick:o1': 'picked 3',
      'warehouse:label:o1': 'labelled',
    });
  });

  it('refuses a whole tree with an invalid DTO or an unknown queue, writing nothing', async () => {
    const app = await nest.app({ imports: [QueueModule.forRoot(rootOptions()), OrdersModule], providers: [OrderProcessor, WarehouseProcessor] });
    const orders = app.get<Queue>(getQueueToken('orders'), { strict: false });
    const warehouse = app.get<Queue>(getQueueToken('warehouse'), { strict: false });
    nest.verifyAfter(orders, warehouse);
    const service = app.get(Orders);

    const invalid = await service.place('o2', 0).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(QueueValidationError);
    expect((invalid as QueueValidationError).constraints).toEqual(['qty: qty must not be less than 1']);

    await expect(service.flows.add({ name: 'x', queueName: 'orders', children: [{ name: 'y', queueName: 'nowhere' }] })).rejects.toBeInstanceOf(UnknownQueueError);
    for (const queue of [orders, warehouse]) {
      const c = await queue.getCounts();
      expect(c.waiting + c['waiting-children'] + c.delayed + c.active + c.completed + c.failed).toBe(0);
    }
  });

  it('knows a queue a lazy module registers after the producer was first used', async () => {
    const app = await nest.app({ imports: [QueueModule.forRoot(rootOptions()), OrdersModule], providers: [OrderProcessor, WarehouseProcessor] });
    const flows = app.get(Orders).flows;
    const late = { name: 'x', queueName: 'orders', children: [{ name: 'y', queueName: 'late', data: { n: 1 } }] };
    await expect(flows.add(late)).rejects.toBeInstanceOf(UnknownQueueError);

    @Module({ imports: [QueueModule.registerQueue({ name: 'late', defaultJobOptions: { attempts: 2 } })] })
    class LateModule {}
    const lazy = await app.get(LazyModuleLoader).load(() => LateModule);
    const lateQueue = lazy.get<Queue>(getQueueToken('late'), { strict: false });
    const orders = app.get<Queue>(getQueueToken('orders'), { strict: false });
    nest.verifyAfter(orders, lateQueue);

    const tree = await flows.add(late);
    expect(tree.children[0]!.job.opts.attempts).toBe(2);
    expect((await lateQueue.getJob(tree.children[0]!.job.id))?.state).toBe('waiting');
  });
});
