// Runs inside a throwaway ES module Nest 12 app that installed the packed
// Spool tarball: test/consumer/install.spec.ts copies it there, compiles it
// with tsc and runs it with node. Prints one JSON line.
import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { getQueueToken, OnJob, Processor, Queue, QueueModule, SpoolError, type ActiveJob } from 'spool';
import * as engine from 'spool/engine';
import { createRequire } from 'node:module';

const QUEUE = process.env.SPOOL_CONSUMER_QUEUE!;

@Processor(QUEUE)
class GreetProcessor {
  @OnJob('greet')
  greet(job: ActiveJob<{ name: string }>): string {
    return `hello ${job.data.name} from ${typeof require === 'function' ? 'commonjs' : 'esm'}`;
  }
}

@Module({
  imports: [QueueModule.forRoot({ connection: { url: process.env.REDIS_URL! } }), QueueModule.registerQueue(QUEUE)],
  providers: [GreetProcessor],
})
class AppModule {}

const app = await NestFactory.createApplicationContext(AppModule, { logger: ['error', 'warn'] });
try {
  const queue = app.get<Queue>(getQueueToken(QUEUE));
  const job = await queue.add('greet', { name: 'ada' });
  const result = await job.waitUntilFinished({ timeout: 15_000 });
  const required = createRequire(import.meta.url)('spool') as typeof import('spool');
  console.log(
    JSON.stringify({
      result,
      instanceOfQueue: queue instanceof Queue,
      sameAsRequire: required.Queue === Queue && required.SpoolError === SpoolError,
      sameAsEngine: engine.Queue === Queue,
    }),
  );
} finally {
  await app.close();
}
