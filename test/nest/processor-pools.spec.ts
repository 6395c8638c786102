import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import {
  OnJob,
  OnWorkerEvent,
  Processor,
  ProcessorOverlapError,
  QueueModule,
  SpoolBootstrapError,
  SpoolWorkers,
  WorkerHost,
  WorkerNotReadyError,
  getQueueToken,
  type ActiveJob,
  type Queue,
} from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

@Injectable()
class Ledger {
  readonly lines: string[] = [];
}

/** Two feature modules, each with its own processor class of queue "orders". */
@Processor('orders', { concurrency: 4 })
class BillingProcessor extends WorkerHost {
  constructor(private readonly ledger: Ledger) {
    super();
  }

  @OnJob('charge')
  charge(job: ActiveJob<{ n: number }>): string {
    this.ledger.lines.push(`charge ${job.data.n}`);
    return 'charged';
  }

  @OnWorkerEvent('completed')
  done(job: ActiveJob): void {
    this.ledger.lines.push(`billing heard ${job.name}`);
  }
}

@Processor('orders')
class ShippingProcessor extends WorkerHost {
  constructor(private readonly ledger: Ledger) {
    super();
  }

  @OnJob('ship', { batch: { size: 3, maxWaitMs: 20 } })
  ship(jobs: ActiveJob<{ n: number }>[]): string[] {
    this.ledger.lines.push(`ship ${jobs.length}`);
    return jobs.map(() => 'shipped');
  }

  @OnJob()
  other(job: ActiveJob): string {
    return `other ${job.name}`;
  }
}

@Module({ imports: [QueueModule.registerQueue('orders')], providers: [BillingProcessor] })
class BillingModule {}

@Module({ imports: [QueueModule.registerQueue('orders')], providers: [ShippingProcessor] })
class ShippingModule {}

@Module({ providers: [Ledger], exports: [Ledger] })
class LedgerModule {}

async function bootError(providers: unknown[]): Promise<unknown> {
  try {
    const app = await Test.createTestingModule({ imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('orders'), LedgerModule], providers: providers as never[] }).compile();
    await app.init();
    await app.close();
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('several @Processor classes on one queue', () => {
  const h = nestHarness();

  it('runs them in one worker pool with one handler table; each class reaches the pool through this.worker', async () => {
    const app = await h.app({ imports: [QueueModule.forRoot(rootOptions()), { module: LedgerModule, global: true }, BillingModule, ShippingModule] });
    const queue = app.get<Queue<{ n: number }>>(getQueueToken('orders'));
    h.verifyAfter(queue as unknown as Queue);
    const workers = app.get(SpoolWorkers);
    expect(workers.all()).toHaveLength(1);
    const worker = workers.get('orders')!;
    expect(workers.get(BillingProcessor)).toBe(worker);
    expect(workers.get(ShippingProcessor)).toBe(worker);
    expect(app.get(BillingProcessor).worker).toBe(worker);
    expect(app.get(ShippingProcessor).worker).toBe(worker);
    // The pool's concurrency is the one class's option (4), over the batch size (3).
    await waitFor(async () => (await queue.getWorkers()).length === 1, { message: 'the pool in the workers list' });
    expect((await queue.getWorkers()).map((w) => w.concurrency)).toEqual([4]);

    const jobs = await queue.addBulk([{ name: 'charge', data: { n: 1 } }, ...[1, 2, 3].map((n) => ({ name: 'ship', data: { n } })), { name: 'misc', data: { n: 0 } }]);
    await waitFor(async () => (await Promise.all(jobs.map((j) => queue.getJob(j.id)))).every((j) => j?.state === 'completed'), { message: 'all five jobs done' });
    const results = await Promise.all(jobs.map(async (j) => (await queue.getJob(j.id))!.result));
    expect(results).toEqual(['charged', 'shipped', 'shipped', 'shipped', 'other misc']);
    const ledger = app.get(Ledger);
    // Worker events reach every class that listens, for jobs of any class.
    await waitFor(() => ledger.lines.filter((l) => l.startsWith('billing heard')).length === 5, { message: 'five completed events' });
    expect(ledger.lines).toContain('charge 1');

    // Pausing through one class's handle pauses the pool the other class runs in.
    await app.get(ShippingProcessor).worker.pause();
    expect(worker.isPaused()).toBe(true);
    const held = await queue.add('ship', { n: 9 });
    await app.get(BillingProcessor).worker.resume();
    await waitFor(async () => (await queue.getJob(held.id))?.state === 'completed', { message: 'the job after resume' });
  });

  it('refuses a job name two classes handle, with a typed error naming both classes and the name', async () => {
    @Processor('orders')
    class AlsoCharges {
      @OnJob('charge') charge(): void {}
    }
    const error = await bootError([BillingProcessor, AlsoCharges]);
    expect(error).toBeInstanceOf(ProcessorOverlapError);
    expect(error).toMatchObject({ queue: 'orders', jobName: 'charge', classes: ['BillingProcessor', 'AlsoCharges'] });
    expect((error as Error).message).toMatch(/^@Processor\('orders'\) on AlsoCharges declares a handler for job name "charge" of queue "orders", and so does BillingProcessor/);

    @Processor('orders')
    class AnotherFallback {
      @OnJob() any(): void {}
    }
    expect(await bootError([ShippingProcessor, AnotherFallback])).toMatchObject({ jobName: undefined, classes: ['ShippingProcessor', 'AnotherFallback'] });
  });

  it('refuses pool options two classes set differently, and a sandboxed processor sharing its queue', async () => {
    @Processor('orders', { concurrency: 2 })
    class Narrow {
      @OnJob('refund') refund(): void {}
    }
    const error = await bootError([BillingProcessor, Narrow]);
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect((error as Error).message).toBe(
      "@Processor('orders') options.concurrency of Narrow is 2, but BillingProcessor (same queue, same worker pool) sets 4: the pool has one concurrency: set it on one class, or the same on both",
    );
    @Processor('orders', { concurrency: 4 })
    class Same {
      @OnJob('refund') refund(): void {}
    }
    expect(await bootError([BillingProcessor, Same])).toBeUndefined();

    @Processor('orders', { sandbox: { file: '/nonexistent/handler.js' } })
    class Boxed {}
    expect((await bootError([Boxed, BillingProcessor]) as Error).message).toMatch(/options.sandbox of Boxed runs every job of queue "orders" in its module, so BillingProcessor's handlers would never run/);
  });

  it("WorkerHost's worker is not there before module init: a typed error says when to read it", () => {
    @Processor('orders')
    class Early extends WorkerHost {
      readonly seen: unknown;
      constructor() {
        super();
        try {
          this.seen = this.worker;
        } catch (err) {
          this.seen = err;
        }
      }
      @OnJob('x') x(): void {}
    }
    const early = new Early();
    expect(early.seen).toBeInstanceOf(WorkerNotReadyError);
    expect((early.seen as Error).message).toMatch(/^Early\.worker is not ready: Spool builds the worker at module init/);
  });
});
