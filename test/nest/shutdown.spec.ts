import 'reflect-metadata';
import { Injectable } from '@nestjs/common';
import { InjectQueue, OnJob, Processor, QueueModule, getQueueToken, type ActiveJob, type Queue } from '../../lib/index.js';
import { uniquePrefix } from '../helpers/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

/** How the processor behaves in this app: finish after `workMs`, or hang until aborted. */
@Injectable()
class Behaviour {
  hang = false;
  workMs = 300;
  started = 0;
  aborted: unknown[] = [];
}

@Processor('reports')
class ReportProcessor {
  constructor(
    private readonly behaviour: Behaviour,
    @InjectQueue('audit') private readonly audit: Queue<{ report: string }>,
  ) {}

  @OnJob('build')
  async build(job: ActiveJob<{ id: string }>): Promise<string> {
    this.behaviour.started++;
    if (this.behaviour.hang) {
      await new Promise<void>((resolve) => job.signal.addEventListener('abort', () => resolve(), { once: true }));
      this.behaviour.aborted.push(job.signal.reason);
      throw job.signal.reason;
    }
    await new Promise((r) => setTimeout(r, this.behaviour.workMs));
    // A follow-up job, added while the app is shutting down: producers still work.
    await this.audit.add('built', { report: job.data.id });
    return `report ${job.data.id}`;
  }
}

describe('graceful shutdown', () => {
  const nest = nestHarness();

  async function start(prefix: string, configure: (b: Behaviour) => void, shutdownTimeout?: number) {
    const options = rootOptions(prefix);
    const app = await nest.app({
      imports: [
        QueueModule.forRoot(shutdownTimeout === undefined ? options : { ...options, workers: { shutdownTimeout } }),
        QueueModule.registerQueue('reports', 'audit'),
      ],
      providers: [Behaviour, ReportProcessor],
    });
    configure(app.get(Behaviour));
    return app;
  }

  it('lets a job in flight finish (and enqueue a follow-up) before closing', async () => {
    const prefix = uniquePrefix('shut');
    const app = await start(prefix, (b) => (b.workMs = 400));
    const reports = app.get<Queue>(getQueueToken('reports'));
    const job = await reports.add('build', { id: 'q3' });
    await waitFor(() => app.get(Behaviour).started === 1, { message: 'the job to start' });
    await nest.close(app);

    // Look with a fresh app on the same keys: the job completed, the follow-up is waiting.
    const observer = await start(prefix, () => undefined);
    const view = observer.get<Queue>(getQueueToken('reports'));
    const audit = observer.get<Queue>(getQueueToken('audit'));
    nest.verifyAfter(view, audit);
    const done = await view.getJob(job.id);
    expect(done?.state).toBe('completed');
    expect(done?.result).toBe('report q3');
    expect((await audit.getCounts()).waiting).toBe(1);
  });

  it('past shutdownTimeout aborts and releases the job, and another app finishes it', async () => {
    const prefix = uniquePrefix('shut');
    const first = await start(prefix, (b) => (b.hang = true), 200);
    const reports = first.get<Queue>(getQueueToken('reports'));
    const job = await reports.add('build', { id: 'q4' }, { attempts: 1 });
    await waitFor(() => first.get(Behaviour).started === 1, { message: 'the job to start' });
    const closing = Date.now();
    await nest.close(first);
    expect(Date.now() - closing).toBeLessThan(4000);
    expect(String(first.get(Behaviour).aborted[0])).toMatch(/WorkerClosingError|shutting down/);

    const second = await start(prefix, () => undefined);
    const queue = second.get<Queue>(getQueueToken('reports'));
    nest.verifyAfter(queue, second.get<Queue>(getQueueToken('audit')));
    await expect(queue.waitFor(job.id, { timeout: 5000 })).resolves.toBe('report q4');
    const finished = await queue.getJob(job.id);
    expect(finished?.attempt).toBe(1);
    expect((await queue.getCounts()).active).toBe(0);
  });
});
