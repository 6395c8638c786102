// Runs inside a throwaway Nest 11 app (CommonJS, ts-jest) that installed the
// packed Spool tarball: test/consumer/install.spec.ts copies it there.
import { Test } from '@nestjs/testing';
import { getQueueToken, OnJob, Processor, Queue, QueueModule, type ActiveJob } from 'spool';
import { RedisStore } from 'spool/engine';
import type { JobRecord } from 'spool/store';

const QUEUE = process.env.SPOOL_CONSUMER_QUEUE!;

@Processor(QUEUE)
class GreetProcessor {
  @OnJob('greet')
  greet(job: ActiveJob<{ name: string }>): string {
    return `hello ${job.data.name} from ${typeof require === 'function' ? 'commonjs' : 'esm'}`;
  }
}

describe('Spool in a CommonJS Nest 11 app', () => {
  it('boots QueueModule and a @Processor that processes a job', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [QueueModule.forRoot({ connection: { url: process.env.REDIS_URL! } }), QueueModule.registerQueue(QUEUE)],
      providers: [GreetProcessor],
    }).compile();
    await moduleRef.init();
    try {
      const queue = moduleRef.get<Queue>(getQueueToken(QUEUE));
      expect(queue).toBeInstanceOf(Queue);
      const job = await queue.add('greet', { name: 'ada' });
      await expect(job.waitUntilFinished({ timeout: 15_000 })).resolves.toBe('hello ada from commonjs');
      expect(require('spool').Queue).toBe(Queue);
      expect(require('spool/engine').RedisStore).toBe(RedisStore);
      const record: Pick<JobRecord, 'id'> = { id: job.id };
      expect(record.id).toBe(job.id);
    } finally {
      await moduleRef.close();
    }
  });
});
