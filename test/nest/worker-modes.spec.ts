import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { IsInt, Min } from 'class-validator';
import {
  OnJob,
  OnWorkerEvent,
  Processor,
  Queue,
  QueueModule,
  SpoolBootstrapError,
  SpoolWorkers,
  getConnectionToken,
  getQueueToken,
  type ActiveJob,
  type Batch,
} from '../../lib/index.js';
import type { Store } from '../../lib/store/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

const HANDLERS = new URL('../fixtures/sandbox/handlers.mjs', import.meta.url);

class CountDto {
  @IsInt()
  @Min(0)
  n!: number;
}

@Injectable()
class Seen {
  readonly batches: number[][] = [];
  readonly events: string[] = [];
}

@Processor('thumbs', { sandbox: { file: HANDLERS, runner: 'threads' } })
class ThumbProcessor {
  constructor(private readonly seen: Seen) {}

  @OnWorkerEvent('completed')
  completed(job: ActiveJob): void {
    this.seen.events.push(`completed ${job.name}`);
  }
}

@Processor('index')
class IndexProcessor {
  constructor(private readonly seen: Seen) {}

  @OnJob('doc', { batch: { size: 5, maxWaitMs: 20 } })
  index(jobs: ActiveJob<{ n: number }>[], batch: Batch): number[] {
    this.seen.batches.push(jobs.map((j) => j.data.n));
    for (const job of jobs) if (job.data.n === 13) batch.fail(job, new Error('unlucky'));
    return jobs.map((j) => j.data.n * 10);
  }

  @OnJob('single')
  single(job: ActiveJob<{ n: number }>): number {
    return job.data.n;
  }
}

/** Nest: sandboxed processors, @OnJob batches, and each processor's worker through SpoolWorkers.get(Class). */
describe('processor modes in Nest', () => {
  const h = nestHarness();

  async function boot() {
    const app = await h.app({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue({ name: 'thumbs', jobs: { report: CountDto } }, 'index')],
      providers: [Seen, ThumbProcessor, IndexProcessor],
    });
    const thumbs = app.get<Queue>(getQueueToken('thumbs'));
    const index = app.get<Queue<{ n: number }>>(getQueueToken('index'));
    h.verifyAfter(thumbs, index as unknown as Queue);
    return { app, thumbs, index, seen: app.get(Seen), workers: app.get(SpoolWorkers) };
  }

  it('runs a sandboxed processor\'s module; the class still gets worker events; DTOs are checked before dispatch', async () => {
    const { app, thumbs, seen, workers } = await boot();
    const job = await thumbs.add('anything', { n: 1 });
    await waitFor(async () => (await thumbs.getJob(job.id))?.state === 'completed', { message: 'the sandboxed job done' });
    expect((await thumbs.getJob(job.id))!.result).toEqual({ echo: { n: 1 }, attempt: 1 });
    await waitFor(() => seen.events.includes('completed anything'), { message: 'the class heard the event' });
    // A payload its DTO refuses, written past the producer's check: dead-lettered by the worker, never sent to the sandbox.
    const raw = new Queue('thumbs', { store: app.get<Store>(getConnectionToken()) });
    const bad = await raw.add('report', { n: -1 });
    await waitFor(async () => (await thumbs.getJob(bad.id))?.state === 'failed', { message: 'the invalid job dead' });
    expect((await thumbs.getJob(bad.id))!.error).toMatchObject({ reason: 'validation' });
    expect(workers.get(ThumbProcessor)).toBe(workers.get('thumbs'));
  });

  it('gives an @OnJob batch method up to size jobs per call; batch.fail fails one; other names run one by one', async () => {
    const { index, seen } = await boot();
    const docs = await index.addBulk(Array.from({ length: 12 }, (_, i) => ({ name: 'doc', data: { n: i + 5 }, opts: { attempts: 1 } })));
    const single = await index.add('single', { n: 7 });
    await waitFor(async () => (await index.getCounts()).completed === 12, { message: '11 docs and the single job done' });
    expect(Math.max(...seen.batches.map((b) => b.length))).toBeLessThanOrEqual(5);
    expect(seen.batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 5));
    const unlucky = docs.find((d) => d.data.n === 13)!;
    expect(await index.getJob(unlucky.id)).toMatchObject({ state: 'failed', error: { message: 'unlucky' } });
    expect((await index.getJob(docs[0]!.id))!.result).toBe(50);
    expect((await index.getJob(single.id))!.result).toBe(7);
  });

  it('SpoolWorkers.get(ProcessorClass) pauses and resumes that processor alone', async () => {
    const { index, workers } = await boot();
    const worker = workers.get(IndexProcessor)!;
    // The batch size made the processor's concurrency.
    await worker.pause();
    expect(worker.isPaused()).toBe(true);
    expect(workers.get(ThumbProcessor)!.isPaused()).toBe(false);
    const job = await index.add('single', { n: 1 });
    expect((await index.getJob(job.id))!.state).toBe('waiting');
    await worker.resume();
    await waitFor(async () => (await index.getJob(job.id))?.state === 'completed', { message: 'the job ran once resumed' });
    await waitFor(async () => (await index.getWorkers())[0]?.concurrency === 5, { message: 'the processor listed with concurrency 5' });
  });

  it('refuses a sandboxed processor with @OnJob methods, a bad batch and a concurrency below the batch size', async () => {
    @Processor('thumbs', { sandbox: { file: HANDLERS } })
    class Mixed {
      @OnJob('resize') resize(): void {}
    }
    @Processor('index')
    class BadBatch {
      @OnJob('doc', { batch: { size: 5, maxWait: 3 } as never }) index(): void {}
    }
    @Processor('index', { concurrency: 2 })
    class Narrow {
      @OnJob('doc', { batch: { size: 5 } }) index(): void {}
    }
    @Processor('thumbs', { sandbox: { file: HANDLERS, runer: 'threads' } as never })
    class Typo {}
    @Processor('index', { batch: { size: 5 } } as never)
    class ClassBatch {
      @OnJob('doc') index(): void {}
    }
    const boots = async (provider: unknown) =>
      h.app({ imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('thumbs', 'index')], providers: [provider as never] }).then(
        () => undefined,
        (err: unknown) => err as Error,
      );
    const mixed = await boots(Mixed);
    expect(mixed).toBeInstanceOf(SpoolBootstrapError);
    expect(mixed!.message).toMatch(/Mixed\.resize would never run/);
    expect((await boots(BadBatch))!.message).toMatch(/BadBatch\.index has an invalid batch: .*maxWait is not an option: did you mean "maxWaitMs"/);
    expect((await boots(Narrow))!.message).toMatch(/concurrency of Narrow \(2\) is below its largest @OnJob batch size \(5\)/);
    expect((await boots(Typo))!.message).toMatch(/runer is not an option: did you mean "runner"/);
    expect((await boots(ClassBatch))!.message).toMatch(/options.batch is an @OnJob option/);
  });
});
