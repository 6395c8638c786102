import { OnJob, Processor, type ActiveJob } from '../../lib/index.js';
import { PickDto } from '../dto.js';

/** The 'orders' queue: the flow parent 'ship' runs once its children are done; 'charge' is one of them. */
@Processor('orders', { concurrency: 2 })
export class OrderProcessor {
  @OnJob('charge')
  charge(job: ActiveJob<{ orderId: string; qty: number }>): string {
    return `charged ${job.data.qty * 12} EUR for ${job.data.orderId}`;
  }

  @OnJob('ship')
  async ship(job: ActiveJob<{ orderId: string }>): Promise<string> {
    const done = Object.values(await job.getChildrenResults<string>());
    return `shipped ${job.data.orderId} after: ${done.sort().join(', ')}`;
  }
}

/** The 'warehouse' queue: the other two children of an order. */
@Processor('warehouse', { concurrency: 2 })
export class WarehouseProcessor {
  @OnJob('pick', { dto: PickDto })
  pick(_job: ActiveJob, pick: PickDto): string {
    return `picked ${pick.qty} for ${pick.orderId}`;
  }

  @OnJob('pack')
  pack(job: ActiveJob<{ orderId: string }>): string {
    return `packed ${job.data.orderId}`;
  }
}
