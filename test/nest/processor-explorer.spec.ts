import 'reflect-metadata';
import { Injectable, Scope } from '@nestjs/common';
import { DiscoveryModule, DiscoveryService, MetadataScanner } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { OnJob, OnWorkerEvent, Processor, ProcessorOverlapError, SpoolBootstrapError, type ActiveJob } from '../../lib/index.js';
import { ProcessorExplorer, type ProcessorDefinition } from '../../lib/nest/processor-explorer.js';
import { processorPools } from '../../lib/nest/processor-pools.js';

/** The explorer alone: a Nest container with processors and no Redis, no QueueModule, no registry. */

@Processor('mail')
class MailProcessor {
  @OnJob('welcome')
  welcome(): void {}

  @OnJob()
  other(): void {}

  @OnWorkerEvent('failed')
  failed(): void {}
}

@Processor('made', { connection: 'second', concurrency: 3 })
class FactoryProcessor {
  constructor(readonly label: string) {}

  @OnJob('x', { concurrency: 2 })
  x(job: ActiveJob): string {
    return job.name;
  }
}

@Processor('given')
class ValueProcessor {
  @OnJob('y')
  y(): void {}
}

@Injectable({ scope: Scope.REQUEST })
@Processor('scoped')
class ScopedProcessor {
  @OnJob('z')
  z(): void {}
}

@Injectable()
class NotAProcessor {
  run(): void {}
}

@Processor('mail')
class SecondMailProcessor {
  @OnJob('welcome')
  welcome(): void {}
}

class Undecorated {
  @OnJob('lost')
  lost(): void {}
}

async function explore(providers: unknown[]): Promise<ProcessorDefinition[]> {
  const app = await Test.createTestingModule({ imports: [DiscoveryModule], providers: providers as never[] }).compile();
  try {
    return new ProcessorExplorer(app.get(DiscoveryService), app.get(MetadataScanner)).explore();
  } finally {
    await app.close();
  }
}

describe('ProcessorExplorer', () => {
  it('returns one plain definition per processor, class, factory and value providers alike', async () => {
    const found = await explore([
      MailProcessor,
      NotAProcessor,
      { provide: 'MADE', useFactory: () => new FactoryProcessor('f') },
      { provide: ValueProcessor, useValue: new ValueProcessor() },
      ScopedProcessor,
    ]);
    const byQueue = new Map(found.map((d) => [d.metadata.queue, d]));
    expect([...byQueue.keys()].sort()).toEqual(['given', 'made', 'mail', 'scoped']);

    const mail = byQueue.get('mail')!;
    expect(mail).toMatchObject({ className: 'MailProcessor', token: MailProcessor, scope: 'static', metadata: { connection: 'default' } });
    expect([...mail.handlers.byName.keys()]).toEqual(['welcome']);
    expect(mail.handlers.fallback).toEqual({ method: 'other', dto: undefined });
    expect(mail.handlers.events).toEqual([{ event: 'failed', method: 'failed' }]);

    expect(byQueue.get('made')).toMatchObject({ className: 'FactoryProcessor', token: 'MADE', scope: 'static', metadata: { connection: 'second', options: { concurrency: 3 } } });
    expect(byQueue.get('made')!.handlers.caps).toEqual({ x: 2 });
    expect(byQueue.get('given')).toMatchObject({ className: 'ValueProcessor', token: ValueProcessor, scope: 'static' });
    expect(byQueue.get('scoped')).toMatchObject({ className: 'ScopedProcessor', scope: 'per-job' });
    // Plain data: no function anywhere but the token of a class provider.
    for (const d of found) {
      expect(Object.values({ ...d, token: undefined }).some((v) => typeof v === 'function')).toBe(false);
    }
  });

  it('finds a second processor of a queue; their pool refuses a job name both handle, naming both classes and the name', async () => {
    const found = await explore([MailProcessor, SecondMailProcessor]);
    expect(found.map((d) => d.className)).toEqual(['MailProcessor', 'SecondMailProcessor']);
    let error: unknown;
    try {
      processorPools(found);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ProcessorOverlapError);
    expect(error).toBeInstanceOf(SpoolBootstrapError);
    expect(error).toMatchObject({ queue: 'mail', jobName: 'welcome', classes: ['MailProcessor', 'SecondMailProcessor'] });
  });

  it('refuses handlers on a class without @Processor', async () => {
    await expect(explore([Undecorated])).rejects.toThrow(/Undecorated\.lost has @OnJob or @OnWorkerEvent but Undecorated has no @Processor/);
  });
});
