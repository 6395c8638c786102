import 'reflect-metadata';
import { ConsoleLogger, Inject, Injectable, Scope } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { REQUEST } from '@nestjs/core';
import {
  OnJob,
  OnWorkerEvent,
  Processor,
  QueueModule,
  SpoolWorkers,
  getQueueToken,
  type ActiveJob,
  type Queue,
} from '../../lib/index.js';
import { waitFor } from '../helpers/wait-for.js';
import { nestHarness, rootOptions } from './nest-harness.js';

/** Records what processors saw, injected into them (DI inside processors). */
@Injectable()
class Journal {
  readonly lines: string[] = [];
  readonly events: string[] = [];
}

@Processor('mail')
class MailProcessor {
  constructor(private readonly journal: Journal) {}

  @OnJob('welcome')
  welcome(job: ActiveJob<{ to: string }>, payload: { to: string }): string {
    this.journal.lines.push(`welcome ${payload.to}`);
    return `welcomed ${job.data.to}`;
  }

  @OnJob()
  anything(job: ActiveJob): string {
    this.journal.lines.push(`fallback ${job.name}`);
    return `fallback ${job.name}`;
  }

  @OnWorkerEvent('completed')
  onCompleted(job: ActiveJob, result: unknown): void {
    this.journal.events.push(`completed ${job.name} ${String(result)}`);
  }

  @OnWorkerEvent('failed')
  onFailed(job: ActiveJob, error: Error, next: string): void {
    this.journal.events.push(`failed ${job.name} ${next} ${error.message}`);
  }

  @OnWorkerEvent('active')
  onActive(job: ActiveJob): void {
    this.journal.events.push(`active ${job.name}`);
  }
}

@Processor('strict')
class StrictProcessor {
  @OnJob('known')
  known(): string {
    return 'ok';
  }
}

let requestInstances = 0;
@Processor('scoped')
@Injectable({ scope: Scope.REQUEST })
class ScopedProcessor {
  readonly serial = ++requestInstances;
  constructor(@Inject(REQUEST) private readonly request: ActiveJob) {}

  @OnJob('which')
  which(job: ActiveJob): number {
    // REQUEST is the job this instance was made for.
    if (this.request !== job) throw new Error('REQUEST is not the running job');
    return this.serial;
  }
}

let transientInstances = 0;
@Processor('transient')
@Injectable({ scope: Scope.TRANSIENT })
class TransientProcessor {
  readonly serial = ++transientInstances;
  @OnJob('which')
  which(): number {
    return this.serial;
  }
}

@Processor('manual', { autorun: false })
class ManualProcessor {
  @OnJob('go')
  go(): string {
    return 'went';
  }
}

@Processor('noisy')
class NoisyProcessor {
  @OnJob('ping')
  ping(): string {
    return 'pong';
  }

  @OnWorkerEvent('completed')
  broken(): void {
    throw new Error('listener bug');
  }
}

/** Keeps what Nest's logger was asked to print, with its context. */
class CapturingLogger extends ConsoleLogger {
  readonly errors: { message: string; context?: string }[] = [];
  override log(): void {}
  override error(message: unknown, ...rest: unknown[]): void {
    this.errors.push({ message: String(message), context: rest.at(-1) as string | undefined });
  }
}

/** Provided by useFactory and useValue (no class provider): found through the instance's constructor. */
@Processor('made')
class FactoryMadeProcessor {
  constructor(private readonly suffix: string) {}

  @OnJob('echo')
  echo(job: ActiveJob<string>): string {
    return `${job.data} ${this.suffix}`;
  }
}

@Processor('given')
class ValueGivenProcessor {
  @OnJob('echo')
  echo(job: ActiveJob<string>): string {
    return `${job.data} given`;
  }
}

describe('processors', () => {
  const nest = nestHarness();

  it('runs named handlers and the fallback @OnJob(), and delivers worker events', async () => {
    const app = await nest.app({ imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('mail')], providers: [Journal, MailProcessor] });
    const queue = app.get<Queue<{ to: string }>>(getQueueToken('mail'));
    nest.verifyAfter(queue);
    const welcome = await queue.add('welcome', { to: 'ada@example.com' });
    const other = await queue.add('digest', { to: 'bob@example.com' });
    await expect(queue.waitFor(welcome.id, { timeout: 5000 })).resolves.toBe('welcomed ada@example.com');
    await expect(queue.waitFor(other.id, { timeout: 5000 })).resolves.toBe('fallback digest');
    const journal = app.get(Journal);
    expect(journal.lines.sort()).toEqual(['fallback digest', 'welcome ada@example.com']);
    await waitFor(() => journal.events.filter((e) => e.startsWith('completed')).length === 2, { message: 'two completed events' });
    expect(journal.events).toEqual(expect.arrayContaining(['active welcome', 'active digest', 'completed welcome welcomed ada@example.com', 'completed digest fallback digest']));
  });

  it('runs processors provided by useFactory and useValue', async () => {
    const app = await nest.app({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('made', 'given')],
      providers: [
        { provide: 'MADE', useFactory: () => new FactoryMadeProcessor('made by a factory') },
        { provide: ValueGivenProcessor, useValue: new ValueGivenProcessor() },
      ],
    });
    const made = app.get<Queue<string>>(getQueueToken('made'));
    const given = app.get<Queue<string>>(getQueueToken('given'));
    nest.verifyAfter(made);
    nest.verifyAfter(given);
    const a = await made.add('echo', 'hello');
    const b = await given.add('echo', 'hi');
    await expect(made.waitFor(a.id, { timeout: 5000 })).resolves.toBe('hello made by a factory');
    await expect(given.waitFor(b.id, { timeout: 5000 })).resolves.toBe('hi given');
    expect(app.get(SpoolWorkers).all().map((w) => w.queueName).sort()).toEqual(['given', 'made']);
  });

  it('dead-letters a job with no handler (reason no-handler) and goes on', async () => {
    const app = await nest.app({ imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('strict')], providers: [StrictProcessor] });
    const queue = app.get<Queue>(getQueueToken('strict'));
    nest.verifyAfter(queue);
    const stray = await queue.add('unknown', {}, { attempts: 3 });
    const known = await queue.add('known', {});
    await expect(queue.waitFor(stray.id, { timeout: 5000 })).rejects.toThrow(/no handler for job name "unknown"/);
    await expect(queue.waitFor(known.id, { timeout: 5000 })).resolves.toBe('ok');
    const dead = await queue.getJob(stray.id);
    expect(dead?.state).toBe('failed');
    expect(dead?.error?.reason).toBe('no-handler');
    expect(dead?.attempt).toBe(1);
  });

  it('gives request-scoped and transient processors a fresh instance per job', async () => {
    const app = await nest.app({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('scoped', 'transient')],
      providers: [ScopedProcessor, TransientProcessor],
    });
    for (const name of ['scoped', 'transient']) {
      const queue = app.get<Queue<unknown, number>>(getQueueToken(name));
      nest.verifyAfter(queue);
      const a = await queue.add('which', {});
      const first = await queue.waitFor(a.id, { timeout: 5000 });
      const b = await queue.add('which', {});
      const second = await queue.waitFor(b.id, { timeout: 5000 });
      expect(second).toBeGreaterThan(first);
    }
  });

  it('leaves autorun: false processors to the app, through SpoolWorkers', async () => {
    const app = await nest.app({ imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('manual')], providers: [ManualProcessor] });
    const queue = app.get<Queue>(getQueueToken('manual'));
    nest.verifyAfter(queue);
    const job = await queue.add('go', {});
    const worker = app.get(SpoolWorkers).get('manual');
    expect(worker?.isRunning).toBe(false);
    await expect(queue.waitFor(job.id, { timeout: 300 })).rejects.toThrow(/timed out|WaitTimeout|within/i);
    expect((await queue.getJob(job.id))?.state).toBe('waiting');
    await worker!.run();
    await expect(queue.waitFor(job.id, { timeout: 5000 })).resolves.toBe('went');
  });

  it("reports what it cannot throw through Nest's Logger, context 'Spool'", async () => {
    const logger = new CapturingLogger();
    const app = await Test.createTestingModule({ imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('noisy')], providers: [NoisyProcessor] })
      .setLogger(logger)
      .compile();
    await app.init();
    try {
      const queue = app.get<Queue>(getQueueToken('noisy'));
      const job = await queue.add('ping', {});
      await expect(queue.waitFor(job.id, { timeout: 5000 })).resolves.toBe('pong');
      await waitFor(() => logger.errors.length > 0, { message: 'the listener error to be logged' });
      expect(logger.errors[0]).toEqual({ message: "NoisyProcessor.broken (@OnWorkerEvent('completed')) threw", context: 'Spool' });
      expect(await queue.verify()).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
