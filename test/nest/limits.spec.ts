import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { OnJob, Processor, QueueModule, getQueueToken, type ActiveJob, type Queue } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

/** Active jobs per tenant, and the most seen at once. */
@Injectable()
class TenantGauge {
  readonly running = new Map<string, number>();
  readonly peak = new Map<string, number>();
  done = 0;
}

@Processor('reports', { concurrency: 8, limiter: { max: 500, duration: 1000 } })
class TenantProcessor {
  constructor(private readonly gauge: TenantGauge) {}

  @OnJob('render')
  async render(job: ActiveJob<{ tenant: string }>): Promise<void> {
    const { tenant } = job.data;
    const now = (this.gauge.running.get(tenant) ?? 0) + 1;
    this.gauge.running.set(tenant, now);
    this.gauge.peak.set(tenant, Math.max(this.gauge.peak.get(tenant) ?? 0, now));
    await new Promise((r) => setTimeout(r, 30));
    this.gauge.running.set(tenant, (this.gauge.running.get(tenant) ?? 1) - 1);
    this.gauge.done++;
  }
}

/** Jobs of the capped queue running at once, and the most seen. */
@Injectable()
class CapGauge {
  running = 0;
  peak = 0;
  done = 0;
}

@Processor('capped', { concurrency: 8 })
class CappedProcessor {
  constructor(private readonly gauge: CapGauge) {}

  @OnJob()
  async run(): Promise<void> {
    this.gauge.peak = Math.max(this.gauge.peak, ++this.gauge.running);
    await new Promise((r) => setTimeout(r, 30));
    this.gauge.running--;
    this.gauge.done++;
  }
}

describe('throughput limits from registerQueue and @Processor', () => {
  const nest = nestHarness();

  it('stores the limits at bootstrap and caps each tenant group', async () => {
    const app = await nest.app({
      imports: [
        QueueModule.forRoot(rootOptions()),
        QueueModule.registerQueue({ name: 'reports', limits: { groupConcurrency: 2, maxWaiting: 1000 } }),
      ],
      providers: [TenantGauge, TenantProcessor],
    });
    const queue = app.get<Queue<{ tenant: string }>>(getQueueToken('reports'));
    nest.verifyAfter(queue);
    const limits = await queue.getLimits();
    expect(limits.groupConcurrency).toBe(2);
    expect(limits.maxWaiting).toBe(1000);
    expect(limits.rateLimit).toEqual({ max: 500, duration: 1000 });

    const tenants = ['acme', 'globex', 'initech'];
    await queue.addBulk(
      Array.from({ length: 30 }, (_, i) => {
        const tenant = tenants[i % 3]!;
        return { name: 'render', data: { tenant }, opts: { group: { id: tenant } } };
      }),
    );
    const gauge = app.get(TenantGauge);
    await waitFor(() => gauge.done === 30, { timeout: 15_000, message: 'all 30 jobs' });
    for (const tenant of tenants) expect(gauge.peak.get(tenant)).toBe(2);
  });

  it('registerQueue({ limits: { concurrency } }) caps the queue below the concurrency of its processor', async () => {
    const app = await nest.app({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue({ name: 'capped', limits: { concurrency: 3 } })],
      providers: [CapGauge, CappedProcessor],
    });
    const queue = app.get<Queue>(getQueueToken('capped'));
    nest.verifyAfter(queue);
    expect(await queue.getGlobalConcurrency()).toBe(3);
    await queue.addBulk(Array.from({ length: 24 }, (_, i) => ({ name: 'n', data: i })));
    const gauge = app.get(CapGauge);
    await waitFor(() => gauge.done === 24, { timeout: 15_000, message: 'all 24 jobs' });
    expect(gauge.peak).toBe(3);
  });
});
