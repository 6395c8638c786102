import { Body, Controller, Get, NotFoundException, Param, Post } from '@nestjs/common';
import { InjectFlowProducer, InjectQueue, type FlowProducer, type Queue } from '../lib/index.js';
import { OrderDto } from './dto.js';
import { jobView, type JobView } from './job-view.js';

interface OrderTree {
  readonly order: JobView;
  readonly children: JobView[];
}

/** An order is a flow: 'ship' (orders) runs after 'charge' (orders), 'pick' and 'pack' (warehouse). */
@Controller('orders')
export class OrdersController {
  constructor(
    @InjectFlowProducer() private readonly flows: FlowProducer,
    @InjectQueue('orders') private readonly orders: Queue,
    @InjectQueue('warehouse') private readonly warehouse: Queue,
  ) {}

  @Post()
  async place(@Body() order: OrderDto): Promise<{ id: string }> {
    const { orderId, qty } = order;
    const { job } = await this.flows.add({
      name: 'ship',
      queueName: 'orders',
      data: { orderId },
      opts: { jobId: `order:${orderId}` },
      children: [
        { name: 'charge', queueName: 'orders', data: { orderId, qty }, opts: { jobId: `charge:${orderId}`, attempts: 3 } },
        { name: 'pick', queueName: 'warehouse', data: { orderId, qty }, opts: { jobId: `pick:${orderId}` } },
        { name: 'pack', queueName: 'warehouse', data: { orderId }, opts: { jobId: `pack:${orderId}` } },
      ],
    });
    return { id: job.id };
  }

  @Get(':orderId')
  async tree(@Param('orderId') orderId: string): Promise<OrderTree> {
    const order = await this.orders.getJob(`order:${orderId}`);
    if (!order) throw new NotFoundException(`no order ${orderId}`);
    const children = await Promise.all([
      this.orders.getJob(`charge:${orderId}`),
      this.warehouse.getJob(`pick:${orderId}`),
      this.warehouse.getJob(`pack:${orderId}`),
    ]);
    return { order: jobView(order), children: children.filter((c) => c !== null).map(jobView) };
  }
}
