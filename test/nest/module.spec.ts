import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { InjectQueue, OnJob, Processor, Queue, QueueModule, getQueueToken, type ActiveJob } from '../../lib/index.js';
import { nestHarness, rootOptions } from './nest-harness.js';

@Injectable()
class Greeter {
  greet(name: string): string {
    return `hello ${name}`;
  }
}

@Processor('greetings')
class GreetingProcessor {
  constructor(private readonly greeter: Greeter) {}

  @OnJob('greet')
  greet(job: ActiveJob<{ name: string }>): string {
    return this.greeter.greet(job.data.name);
  }
}

@Injectable()
class GreetingService {
  constructor(@InjectQueue('greetings') readonly queue: Queue<{ name: string }, string>) {}
}

describe('QueueModule.forRoot', () => {
  const nest = nestHarness();

  it('provides queues, finds processors and runs their jobs with DI inside', async () => {
    const app = await nest.app({
      imports: [QueueModule.forRoot(rootOptions()), QueueModule.registerQueue('greetings')],
      providers: [Greeter, GreetingProcessor, GreetingService],
    });
    const { queue } = app.get(GreetingService);
    expect(queue).toBeInstanceOf(Queue);
    expect(app.get(getQueueToken('greetings'))).toBe(queue);
    nest.verifyAfter(queue);
    const job = await queue.add('greet', { name: 'ada' });
    await expect(queue.waitFor(job.id, { timeout: 5000 })).resolves.toBe('hello ada');
  });
});
