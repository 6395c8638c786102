import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { OnJob, Processor, QueueModule, getQueueToken, type ActiveJob, type Queue } from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

/** Running jobs per name, and the most ever seen at once. */
@Injectable()
class Gauge {
  readonly running = new Map<string, number>();
  readonly peak = new Map<string, number>();
  done = 0;

  async hold(name: string, ms: number): Promise<void> {
    const now = (this.running.get(name) ?? 0) + 1;
    this.running.set(name, now);
    this.peak.set(name, Math.max(this.peak.get(name) ?? 0, now));
    await new Promise((r) => setTimeout(r, ms));
    this.running.set(name, (this.running.get(name) ?? 1) - 1);
    this.done++;
  }
}

@Processor('images', { concurrency: 6 })
class ImageProcessor {
  constructor(private readonly gauge: Gauge) {}

  @OnJob('resize', { concurrency: 2 })
  async resize(job: ActiveJob): Promise<void> {
    await this.gauge.hold(job.name, 40);
  }

  @OnJob('tag')
  async tag(job: ActiveJob): Promise<void> {
    await this.gauge.hold(job.name, 40);
  }
}

describe('per-name concurrency (@OnJob concurrency)', () => {
  const nest = nestHarness();

  it('never runs more than the cap of a name while the pool runs other names', async () => {
    const app = await nest.app({ imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('images')], providers: [Gauge, ImageProcessor] });
    const queue = app.get<Queue>(getQueueToken('images'));
    nest.verifyAfter(queue);
    const gauge = app.get(Gauge);
    // Resize first, so a pool that ignored the cap would fill with resizes.
    await queue.addBulk([
      ...Array.from({ length: 16 }, () => ({ name: 'resize', data: {} })),
      ...Array.from({ length: 16 }, () => ({ name: 'tag', data: {} })),
    ]);
    await waitFor(() => gauge.done === 32, { timeout: 15_000, message: 'all 32 jobs' });
    expect(gauge.peak.get('resize')).toBe(2);
    expect(gauge.peak.get('tag')).toBeGreaterThan(2);
    expect((await queue.getCounts()).completed).toBe(32);
  });
});
